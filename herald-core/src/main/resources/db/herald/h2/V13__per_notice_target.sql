-- Version 13: a definition may have no target of its own (NULL): each of its notices gives one
-- (NoticeDefinition.perNoticeTarget). Until now herald-server stored such definitions (its built-in
-- callback definition) with a sentinel URL under .invalid, which never resolves, and its two alert
-- definitions with a placeholder: they become NULL.
ALTER TABLE herald_definition ALTER COLUMN target DROP NOT NULL;
UPDATE herald_definition SET target = NULL WHERE target = 'https://per-notice-callback-url.invalid/';
UPDATE herald_definition SET target = NULL
  WHERE name = 'herald-alert-webhook' AND channel = 'http' AND target = 'https://alert-webhook.invalid/';
UPDATE herald_definition SET target = NULL
  WHERE name = 'herald-alert-mail' AND channel = 'alert-mail' AND target = 'recipients';
