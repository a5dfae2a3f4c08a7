-- Console users. Only a bcrypt hash of each password is stored.
CREATE TABLE herald_server_user (
  username VARCHAR(100) NOT NULL PRIMARY KEY,
  password_hash VARCHAR(100) NOT NULL,
  role VARCHAR(20) NOT NULL,
  enabled BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  created_by VARCHAR(100)
);
