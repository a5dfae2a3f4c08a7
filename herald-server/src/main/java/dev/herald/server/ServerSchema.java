package dev.herald.server;

import dev.herald.jdbc.Migrations;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * The server's own tables ({@code herald_server_*}), migrated like the core's and by the same
 * migrator: versioned scripts in {@code db/herald-server/<database>/} listed in {@code
 * migrations.txt}, applied versions recorded in {@code herald_server_schema_version}.
 */
final class ServerSchema {
  private ServerSchema() {}

  /** Applies the scripts the database has not seen yet. */
  static void migrate(DataSource dataSource, Clock clock) {
    Migrations.apply(dataSource, clock, "db/herald-server", "herald_server_schema_version");
  }
}
