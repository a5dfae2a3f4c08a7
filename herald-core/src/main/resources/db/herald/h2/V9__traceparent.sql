-- Version 9: the W3C traceparent of the transaction that created a notice, sent with every attempt.
ALTER TABLE herald_notice ADD COLUMN traceparent VARCHAR(55);
ALTER TABLE herald_notice_history ADD COLUMN traceparent VARCHAR(55);
