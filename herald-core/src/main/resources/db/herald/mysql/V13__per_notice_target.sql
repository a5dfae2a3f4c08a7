-- Version 13: a definition may have no target of its own (NULL): each of its notices gives one
-- (NoticeDefinition.perNoticeTarget). Until now herald-server stored such definitions (its built-in
-- callback definition, say) with a sentinel URL under .invalid, which never resolves: it becomes NULL.
ALTER TABLE herald_definition MODIFY target VARCHAR(2000) NULL;
UPDATE herald_definition SET target = NULL WHERE target = 'https://per-notice-callback-url.invalid/';
