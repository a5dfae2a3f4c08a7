-- Version 6: node liveness. A notice held by a node (owner) stays its own while the node's
-- heartbeat row is fresh; once it is stale, any node may claim the notice (no per-notice renewal).
-- owner is now a node's incarnation token: node id, '#', a random suffix chosen at each start.
ALTER TABLE herald_notice MODIFY owner VARCHAR(250);
CREATE TABLE herald_node (
  owner        VARCHAR(250) NOT NULL PRIMARY KEY,
  node_id      VARCHAR(200) NOT NULL,
  started_at   BIGINT       NOT NULL,
  heartbeat_at BIGINT       NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE INDEX herald_node_id ON herald_node (node_id);
-- An operator on one node asks the node holding a notice to let it go (cancel, edit, resend).
CREATE TABLE herald_revocation (
  notice_id    BINARY(16)       NOT NULL PRIMARY KEY,
  owner        VARCHAR(250) NOT NULL,
  requested_at BIGINT       NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE INDEX herald_revocation_owner ON herald_revocation (owner);
-- A confirmation that arrived while its notice was being delivered, applied when the attempt is recorded.
CREATE TABLE herald_confirmation (
  notice_id    BINARY(16) NOT NULL PRIMARY KEY,
  confirmed_at BIGINT NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
