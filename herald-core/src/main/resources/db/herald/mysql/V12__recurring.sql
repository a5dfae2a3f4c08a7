-- Version 12: recurring notices. A schedule (a cron expression in a time zone, or a fixed rate) makes
-- one notice per slot. next_slot_at is the next slot not yet fired: a node fires the slots due by
-- moving it on (UPDATE ... WHERE next_slot_at = the value it read), so two nodes never fire one slot;
-- each fired slot also has a row keyed by its time (the unique slot key) naming its notice.
CREATE TABLE herald_recurring (
  tenant        VARCHAR(40)   DEFAULT 'default' NOT NULL,
  name          VARCHAR(100)  NOT NULL,
  description   VARCHAR(2000),
  definition    VARCHAR(200)  NOT NULL,
  payload       MEDIUMTEXT NOT NULL,
  cron          VARCHAR(200),
  time_zone     VARCHAR(100)  NOT NULL,
  every_ms      BIGINT,
  anchor_at     BIGINT,
  missed        VARCHAR(20)   NOT NULL,
  paused        BOOLEAN       NOT NULL,
  next_slot_at  BIGINT        NOT NULL,
  last_slot_at  BIGINT,
  skipped_slots BIGINT        DEFAULT 0 NOT NULL,
  last_error    VARCHAR(2000),
  created_at    BIGINT        NOT NULL,
  updated_at    BIGINT        NOT NULL,
  PRIMARY KEY (tenant, name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- What every node polls: schedules that are due.
CREATE INDEX herald_recurring_due ON herald_recurring (next_slot_at);
CREATE TABLE herald_recurring_slot (
  tenant     VARCHAR(40)   NOT NULL,
  name       VARCHAR(100)  NOT NULL,
  slot_at    BIGINT        NOT NULL,
  notice_id  BINARY(16) NOT NULL,
  fired_at   BIGINT        NOT NULL,
  PRIMARY KEY (tenant, name, slot_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
