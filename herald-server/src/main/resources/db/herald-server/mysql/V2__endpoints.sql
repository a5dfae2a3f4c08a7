-- Webhook endpoints (origins) with settings of their own: a disabled flag (kept across restarts)
-- and an outgoing rate limit. Endpoints without a row have the defaults.
CREATE TABLE herald_server_endpoint (
  endpoint VARCHAR(300) NOT NULL PRIMARY KEY,
  disabled_at BIGINT,
  disabled_reason VARCHAR(2000),
  max_rate VARCHAR(50),
  updated_at BIGINT NOT NULL
);
