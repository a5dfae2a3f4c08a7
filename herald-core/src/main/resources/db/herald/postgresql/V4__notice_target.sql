-- Version 4: a notice may carry its own target (e.g. a callback URL), overriding its definition's.
ALTER TABLE herald_notice ADD COLUMN target VARCHAR(2000);
ALTER TABLE herald_notice_history ADD COLUMN target VARCHAR(2000);
