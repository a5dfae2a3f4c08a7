-- Version 8: the alert outbox. An alert is written in the same transaction as the outcome that
-- raised it, and deleted in the transaction that enqueues it as an alert notice (Alerts.drain), so
-- none is lost in a crash and none is sent twice. Drained oldest first, by the time-ordered id; an
-- alert never drained is purged with its notice's history.
CREATE TABLE herald_alert (
  id            UUID NOT NULL PRIMARY KEY,
  notice_id     UUID NOT NULL,
  definition    VARCHAR(200)  NOT NULL,
  endpoint      VARCHAR(300),
  failures      INT           NOT NULL,
  final_failure BOOLEAN       NOT NULL,
  error         VARCHAR(4000),
  raised_at     BIGINT        NOT NULL
);
CREATE INDEX herald_alert_notice ON herald_alert (notice_id);
