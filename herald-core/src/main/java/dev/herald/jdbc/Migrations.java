package dev.herald.jdbc;

import dev.herald.store.jdbc.SchemaMigrator;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * Migrates an application's tables as Herald migrates its own: the versioned scripts in {@code
 * <root>/<database>/} ({@code h2}, {@code postgresql} or {@code mysql}), listed in order in its {@code
 * migrations.txt}, each applied once in its own transaction and recorded in {@code versionTable};
 * nodes starting together take a lock, so one migrates and the others find it done.
 */
public final class Migrations {
  private Migrations() {}

  /** Applies the scripts under {@code root} that the database has not seen yet. */
  public static void apply(DataSource dataSource, Clock clock, String root, String versionTable) {
    SchemaMigrator.migrate(dataSource, clock, root, versionTable);
  }
}
