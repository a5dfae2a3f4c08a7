-- Version 10: events, and the endpoints that subscribe to them. Publishing an event writes one notice
-- per subscribed endpoint (each endpoint has a definition of its own) in the publisher's transaction,
-- with the event row and one delivery row per endpoint. Every row has a tenant: 'default' unless
-- given (herald-server's tenants).
CREATE TABLE herald_event_type (
  tenant      VARCHAR(40)   DEFAULT 'default' NOT NULL,
  name        VARCHAR(200)  NOT NULL,
  description VARCHAR(2000),
  json_schema TEXT,
  created_at  BIGINT        NOT NULL,
  updated_at  BIGINT        NOT NULL,
  PRIMARY KEY (tenant, name)
);
CREATE TABLE herald_event_endpoint (
  tenant      VARCHAR(40)   DEFAULT 'default' NOT NULL,
  id          VARCHAR(100)  NOT NULL,
  definition  VARCHAR(200)  NOT NULL,
  description VARCHAR(2000),
  enabled     BOOLEAN       NOT NULL,
  payload_filter VARCHAR(4000),
  created_at  BIGINT        NOT NULL,
  updated_at  BIGINT        NOT NULL,
  PRIMARY KEY (tenant, id)
);
-- Which endpoints get an event type ('*': every type); read at every publish by tenant and type.
CREATE TABLE herald_event_subscription (
  tenant      VARCHAR(40)   NOT NULL,
  event_type  VARCHAR(200)  NOT NULL,
  endpoint_id VARCHAR(100)  NOT NULL,
  PRIMARY KEY (tenant, event_type, endpoint_id)
);
CREATE TABLE herald_event (
  id              UUID          NOT NULL PRIMARY KEY,
  tenant          VARCHAR(40)   NOT NULL,
  event_type      VARCHAR(200)  NOT NULL,
  payload         TEXT          NOT NULL,
  idempotency_key VARCHAR(200),
  created_at      BIGINT        NOT NULL,
  endpoints       INT           NOT NULL,
  expunged        BOOLEAN       DEFAULT FALSE NOT NULL
);
-- One event per key and tenant (rows without a key never conflict).
CREATE UNIQUE INDEX herald_event_key ON herald_event (tenant, idempotency_key);
CREATE INDEX herald_event_created ON herald_event (tenant, created_at);
-- The notice each endpoint got of an event. No index by notice: a notice's description names its event
-- (see Events.eventOf), and each index entry would cost every publish one write per endpoint.
CREATE TABLE herald_event_delivery (
  event_id    UUID          NOT NULL,
  endpoint_id VARCHAR(100)  NOT NULL,
  notice_id   UUID          NOT NULL,
  PRIMARY KEY (event_id, endpoint_id)
);
