-- API tokens of the Herald server. Only a SHA-256 hash of each token is stored.
CREATE TABLE herald_server_token (
  id VARCHAR(36) NOT NULL PRIMARY KEY,
  name VARCHAR(100) NOT NULL,
  role VARCHAR(20) NOT NULL,
  token_hash VARCHAR(64) NOT NULL UNIQUE,
  hint VARCHAR(20) NOT NULL,
  created_at BIGINT NOT NULL,
  created_by VARCHAR(100),
  last_used_at BIGINT,
  revoked_at BIGINT
);
