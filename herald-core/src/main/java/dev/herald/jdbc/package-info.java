/**
 * For applications keeping tables of their own beside Herald's, in the same database (the server's
 * tenants, tokens and audit log): {@link dev.herald.jdbc.JdbcIds} binds and reads notice ids as
 * Herald's tables store them, {@link dev.herald.jdbc.Migrations} migrates those tables as Herald
 * migrates its own.
 */
package dev.herald.jdbc;
