package dev.herald.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that stands still until told to move. Thread-safe. */
public final class SettableClock extends Clock {
  private final AtomicReference<Instant> now;

  public SettableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /** A clock set to the current time, truncated to milliseconds (the precision Herald stores). */
  public static SettableClock startingNow() {
    return new SettableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
  }

  public void set(Instant instant) {
    now.set(instant);
  }

  public Instant advance(Duration by) {
    return now.updateAndGet(t -> t.plus(by));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
