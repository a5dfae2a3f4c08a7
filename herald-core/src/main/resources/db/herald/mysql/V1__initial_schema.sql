-- Herald schema, version 1 (MySQL 8 and MariaDB 10.6+). Same tables and meaning as h2/V1.
-- All times are epoch milliseconds (UTC) in BIGINT, so no session time_zone can shift them.
-- InnoDB, utf8mb4 with binary collation: names and statuses compare exactly, byte for byte.
-- Ids are BINARY(16), the UUID's 16 bytes in order: UUIDv7s are time-ordered, so the clustered
-- primary key grows at its end, and secondary indexes (which repeat the primary key) stay narrow.
-- Idempotency keys are VARBINARY (their UTF-8 bytes): equal only when identical, whatever the
-- case, accents or trailing spaces (a PAD SPACE collation would take 'k' and 'k ' for one key).

CREATE TABLE herald_definition (
  name               VARCHAR(200)  NOT NULL PRIMARY KEY,
  channel            VARCHAR(50)   NOT NULL,
  target             VARCHAR(2000) NOT NULL,
  retry_schedule     VARCHAR(1000) NOT NULL,
  max_attempts       INT           NOT NULL,
  max_interval_ms    BIGINT,
  alert_policy       VARCHAR(50)   NOT NULL,
  confirm_required   BOOLEAN       NOT NULL,
  confirm_timeout_ms BIGINT        NOT NULL,
  description        VARCHAR(2000),
  created_at         BIGINT        NOT NULL,
  updated_at         BIGINT        NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Live notices only: finished ones move to herald_notice_history, so this table stays small.
CREATE TABLE herald_notice (
  id              BINARY(16)    NOT NULL PRIMARY KEY,
  definition      VARCHAR(200)  NOT NULL,
  payload         MEDIUMTEXT    NOT NULL,
  description     VARCHAR(4000),
  idempotency_key VARCHAR(200),
  status          VARCHAR(20)   NOT NULL,
  attempts        INT           NOT NULL,
  retry_base      INT           NOT NULL,
  fire_at         BIGINT        NOT NULL,
  due_at          BIGINT        NOT NULL,
  last_attempt_at BIGINT,
  last_error      VARCHAR(4000),
  created_at      BIGINT        NOT NULL,
  updated_at      BIGINT        NOT NULL,
  owner           VARCHAR(200),
  lease_until     BIGINT        NOT NULL,
  version         BIGINT        NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- The claim query: due_at <= horizon AND lease_until < now, ordered by due_at (the claim names
-- this index: FORCE INDEX (herald_notice_due)).
CREATE INDEX herald_notice_due ON herald_notice (due_at);
-- Operator search by definition and creation time.
CREATE INDEX herald_notice_def_created ON herald_notice (definition, created_at);

CREATE TABLE herald_notice_history (
  id              BINARY(16)    NOT NULL PRIMARY KEY,
  definition      VARCHAR(200)  NOT NULL,
  payload         MEDIUMTEXT    NOT NULL,
  description     VARCHAR(4000),
  idempotency_key VARCHAR(200),
  status          VARCHAR(20)   NOT NULL,
  attempts        INT           NOT NULL,
  retry_base      INT           NOT NULL,
  fire_at         BIGINT        NOT NULL,
  last_attempt_at BIGINT,
  last_error      VARCHAR(4000),
  created_at      BIGINT        NOT NULL,
  updated_at      BIGINT        NOT NULL,
  finished_at     BIGINT        NOT NULL,
  version         BIGINT        NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE INDEX herald_history_finished ON herald_notice_history (finished_at);
CREATE INDEX herald_history_def_created ON herald_notice_history (definition, created_at);

CREATE TABLE herald_attempt (
  notice_id   BINARY(16)    NOT NULL,
  number      INT           NOT NULL,
  started_at  BIGINT        NOT NULL,
  duration_ms BIGINT        NOT NULL,
  outcome     VARCHAR(20)   NOT NULL,
  detail      VARCHAR(4000),
  node        VARCHAR(200),
  PRIMARY KEY (notice_id, number)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Idempotency keys outlive the move to history; purged with the notice.
CREATE TABLE herald_idempotency (
  definition      VARCHAR(200)   NOT NULL,
  idempotency_key VARBINARY(800) NOT NULL,
  notice_id       BINARY(16)     NOT NULL,
  created_at      BIGINT         NOT NULL,
  PRIMARY KEY (definition, idempotency_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
