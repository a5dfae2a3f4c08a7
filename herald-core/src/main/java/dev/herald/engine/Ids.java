package dev.herald.engine;

import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** UUID version 7 (RFC 9562): time-ordered, so new rows land at the end of the primary key index. */
public final class Ids {
  private Ids() {}

  public static UUID next(Clock clock) {
    long millis = clock.millis();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long high = (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
    long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(high, low);
  }
}
