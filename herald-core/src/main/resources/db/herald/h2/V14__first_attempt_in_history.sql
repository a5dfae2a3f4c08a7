-- Version 14: a notice's only attempt in its history row.
-- The attempt of a notice that finished at its first attempt (most deliveries: a plain success) is
-- kept in the notice's history row, not as a row of herald_attempt: one row and one index entry
-- less per delivery. Notices with more attempts, and every live notice, keep theirs in
-- herald_attempt; a resent notice takes its kept attempt back there.
ALTER TABLE herald_notice_history ADD COLUMN first_attempt_started_at BIGINT;
ALTER TABLE herald_notice_history ADD COLUMN first_attempt_ms BIGINT;
ALTER TABLE herald_notice_history ADD COLUMN first_attempt_outcome VARCHAR(20);
ALTER TABLE herald_notice_history ADD COLUMN first_attempt_detail VARCHAR(4000);
ALTER TABLE herald_notice_history ADD COLUMN first_attempt_node VARCHAR(200);
