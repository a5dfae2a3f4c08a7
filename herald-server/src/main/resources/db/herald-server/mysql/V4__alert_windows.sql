-- Alert windows, one per definition and endpoint ('' for a target that is no URL) that alerted and
-- has not delivered since: when its window opened, the alerts counted since (sent as one when the
-- window ends) and the last of them. A row is also the "failing" mark a delivery turns into a
-- "recovered" alert, so both survive a restart and are shared by every server.
CREATE TABLE herald_server_alert_window (
  definition     VARCHAR(200)  NOT NULL,
  endpoint       VARCHAR(300)  NOT NULL,
  opened_at      BIGINT        NOT NULL,
  waiting        INT           NOT NULL,
  last_notice_id VARCHAR(36)   NOT NULL,
  last_failures  INT           NOT NULL,
  last_final     BOOLEAN       NOT NULL,
  last_error     VARCHAR(4000),
  last_at        BIGINT        NOT NULL,
  PRIMARY KEY (definition, endpoint)
);
