-- Version 5: indexes for the operator console and the history purge.
-- Newest first over all notices (the console's default list) walks these instead of sorting a table.
CREATE INDEX herald_notice_created ON herald_notice (created_at);
CREATE INDEX herald_history_created ON herald_notice_history (created_at);
-- The purge deletes idempotency keys by notice id.
CREATE INDEX herald_idempotency_notice ON herald_idempotency (notice_id);
