-- Version 5: tenants (business lines sharing one server), what each owns, the audit log, and
-- server-wide settings. A single-tenant install keeps working as before: everything that existed
-- belongs to the tenant 'default', and admin tokens that existed act for every tenant.
CREATE TABLE herald_server_tenant (
  id               VARCHAR(40)   NOT NULL PRIMARY KEY,
  name             VARCHAR(200)  NOT NULL,
  callback_origins VARCHAR(4000),
  max_backlog      BIGINT,
  max_rate         VARCHAR(50),
  created_at       BIGINT        NOT NULL,
  created_by       VARCHAR(200)
);
INSERT INTO herald_server_tenant (id, name, created_at, created_by) VALUES ('default', 'default', 0, 'migration');

-- A token's tenant; NULL for admin tokens of every tenant (operators). Client tokens act in one tenant.
ALTER TABLE herald_server_token ADD COLUMN tenant VARCHAR(40);
UPDATE herald_server_token SET tenant = 'default' WHERE role <> 'admin';
ALTER TABLE herald_server_token MODIFY created_by VARCHAR(200);

-- A console user's tenant (NULL: every tenant) and a stamp changed with their role, status or
-- password: a session that began under another stamp ends.
ALTER TABLE herald_server_user ADD COLUMN tenant VARCHAR(40);
ALTER TABLE herald_server_user ADD COLUMN stamp BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE herald_server_user MODIFY created_by VARCHAR(200);

-- The tenant of each notice created for a tenant other than 'default' (a notice without a row is
-- the default tenant's). Written in the notice's own transaction.
CREATE TABLE herald_server_notice_tenant (
  notice_id  BINARY(16)   NOT NULL PRIMARY KEY,
  tenant     VARCHAR(40) NOT NULL,
  created_at BIGINT      NOT NULL
);
CREATE INDEX herald_server_notice_tenant_t ON herald_server_notice_tenant (tenant, created_at);

-- Definitions of the default tenant that other tenants may use too.
CREATE TABLE herald_server_definition_grant (
  definition VARCHAR(200) NOT NULL,
  tenant     VARCHAR(40)  NOT NULL,
  PRIMARY KEY (definition, tenant)
);

-- Endpoints (origins) each tenant's notices were sent to: what a tenant sees of GET /endpoints.
CREATE TABLE herald_server_tenant_endpoint (
  tenant   VARCHAR(40)  NOT NULL,
  endpoint VARCHAR(300) NOT NULL,
  seen_at  BIGINT       NOT NULL,
  PRIMARY KEY (tenant, endpoint)
);

-- Every operator and admin action: who, when, what, from where.
CREATE TABLE herald_server_audit (
  id      VARCHAR(36)   NOT NULL PRIMARY KEY,
  occurred_at BIGINT      NOT NULL,
  actor   VARCHAR(250)  NOT NULL,
  tenant  VARCHAR(40),
  action  VARCHAR(60)   NOT NULL,
  target  VARCHAR(300),
  detail  VARCHAR(4000),
  address VARCHAR(100)
);
CREATE INDEX herald_server_audit_at ON herald_server_audit (occurred_at);
CREATE INDEX herald_server_audit_tenant ON herald_server_audit (tenant, occurred_at);

-- Server-wide values every server sharing the database uses, e.g. the key of confirm capabilities.
CREATE TABLE herald_server_setting (
  name  VARCHAR(100)  NOT NULL PRIMARY KEY,
  setting_value VARCHAR(4000) NOT NULL
);
