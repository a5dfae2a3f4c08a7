-- Herald schema, version 1 (PostgreSQL 13+). Same tables and meaning as h2/V1. All times are epoch
-- milliseconds (UTC) in BIGINT, so no session time zone can shift them; ids are uuid; payloads text.

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
);

-- Live notices only: finished ones move to herald_notice_history, so this table stays small.
-- Claims and lease renewals rewrite rows without touching an indexed column; free space in each
-- page (fillfactor) lets PostgreSQL keep those new row versions on the same page (HOT updates),
-- without new index entries.
CREATE TABLE herald_notice (
  id              UUID          NOT NULL PRIMARY KEY,
  definition      VARCHAR(200)  NOT NULL,
  payload         TEXT          NOT NULL,
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
) WITH (fillfactor = 80);
-- The claim query: due_at <= horizon AND lease_until < now, ordered by due_at.
CREATE INDEX herald_notice_due ON herald_notice (due_at);
-- Operator search by definition and creation time.
CREATE INDEX herald_notice_def_created ON herald_notice (definition, created_at);

CREATE TABLE herald_notice_history (
  id              UUID          NOT NULL PRIMARY KEY,
  definition      VARCHAR(200)  NOT NULL,
  payload         TEXT          NOT NULL,
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
);
CREATE INDEX herald_history_finished ON herald_notice_history (finished_at);
CREATE INDEX herald_history_def_created ON herald_notice_history (definition, created_at);

CREATE TABLE herald_attempt (
  notice_id   UUID          NOT NULL,
  number      INT           NOT NULL,
  started_at  BIGINT        NOT NULL,
  duration_ms BIGINT        NOT NULL,
  outcome     VARCHAR(20)   NOT NULL,
  detail      VARCHAR(4000),
  node        VARCHAR(200),
  PRIMARY KEY (notice_id, number)
);

-- Idempotency keys outlive the move to history; purged with the notice.
CREATE TABLE herald_idempotency (
  definition      VARCHAR(200) NOT NULL,
  idempotency_key VARCHAR(200) NOT NULL,
  notice_id       UUID         NOT NULL,
  created_at      BIGINT       NOT NULL,
  PRIMARY KEY (definition, idempotency_key)
);
