-- Version 7: ordered delivery per key. A definition's ordering (none, wait, skip); a counter per
-- ordering key that numbers its notices (its row lock orders enqueues of a key by commit); a line
-- entry per ordered notice, kept with the notice until the history purge.
ALTER TABLE herald_definition ADD COLUMN ordering VARCHAR(20) NOT NULL DEFAULT 'none';
CREATE TABLE herald_ordering_key (
  ordering_key VARCHAR(200) NOT NULL PRIMARY KEY,
  last_seq     BIGINT       NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE herald_ordered (
  notice_id    BINARY(16)   NOT NULL PRIMARY KEY,
  ordering_key VARCHAR(200) NOT NULL,
  seq          BIGINT       NOT NULL,
  hold_on_dead BOOLEAN      NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE INDEX herald_ordered_key ON herald_ordered (ordering_key, seq);
