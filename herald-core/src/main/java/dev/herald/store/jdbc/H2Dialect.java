package dev.herald.store.jdbc;

/** H2 2.x: no SKIP LOCKED, so claims select candidates and lease them with a version check. */
public final class H2Dialect implements Dialect {
  @Override
  public String name() {
    return "h2";
  }

  @Override
  public ClaimStrategy claimStrategy() {
    return ClaimStrategy.SELECT_THEN_UPDATE;
  }
}
