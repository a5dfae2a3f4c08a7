package dev.herald.server.console;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Console login throttling, per user name and per client address: after a few failures each further
 * answer is delayed, doubling from {@code baseDelay} to {@code maxDelay}; past {@code lockAfter}
 * failures of a user (or three times as many from one address) within {@code window}, logins are
 * refused with 429 until the window of the last failure ends, even with the right password. A
 * success forgets the user's failures. Kept in memory, per server.
 */
final class LoginThrottle {
  /** Failures before answers are delayed. */
  static final int FREE_FAILURES = 3;
  private static final int MAX_KEYS = 100_000;

  private record Failures(int count, long firstAt, long lastAt) {}

  /** What to do with a login attempt: wait this long first, or refuse it for {@code retryAfter}. */
  record Decision(Duration delay, Duration retryAfter) {
    boolean refused() {
      return retryAfter != null;
    }
  }

  private final Clock clock;
  private final Duration baseDelay;
  private final Duration maxDelay;
  private final int lockAfter;
  private final Duration window;
  private final Map<String, Failures> failures = new ConcurrentHashMap<>();

  LoginThrottle(Clock clock, Duration baseDelay, Duration maxDelay, int lockAfter, Duration window) {
    this.clock = clock;
    this.baseDelay = baseDelay;
    this.maxDelay = maxDelay;
    this.lockAfter = lockAfter;
    this.window = window;
  }

  Decision check(String username, String address) {
    long now = clock.millis();
    Failures user = current(userKey(username), now);
    Failures from = current(addressKey(address), now);
    int userCount = user == null ? 0 : user.count();
    int addressCount = from == null ? 0 : from.count();
    if (userCount >= lockAfter || addressCount >= 3 * lockAfter) {
      long last = Math.max(user == null ? 0 : user.lastAt(), from == null ? 0 : from.lastAt());
      return new Decision(Duration.ZERO, Duration.ofMillis(Math.max(1000, last + window.toMillis() - now)));
    }
    return new Decision(delay(Math.max(userCount, addressCount / 3)), null);
  }

  /** The delay before answering after {@code count} failures. */
  Duration delay(int count) {
    if (count < FREE_FAILURES) {
      return Duration.ZERO;
    }
    long ms = baseDelay.toMillis() << Math.min(20, count - FREE_FAILURES);
    return Duration.ofMillis(Math.min(ms, maxDelay.toMillis()));
  }

  /** Records a failure; returns the user's failures within the window, this one included. */
  int failed(String username, String address) {
    long now = clock.millis();
    if (failures.size() > MAX_KEYS) {
      failures.values().removeIf(f -> now - f.lastAt() > window.toMillis());
    }
    add(addressKey(address), now);
    return add(userKey(username), now);
  }

  void succeeded(String username) {
    failures.remove(userKey(username));
  }

  private int add(String key, long now) {
    return failures.compute(key, (k, f) -> f == null || now - f.lastAt() > window.toMillis()
        ? new Failures(1, now, now) : new Failures(f.count() + 1, f.firstAt(), now)).count();
  }

  private Failures current(String key, long now) {
    Failures f = failures.get(key);
    return f == null || now - f.lastAt() > window.toMillis() ? null : f;
  }

  private static String userKey(String username) {
    return "user " + (username == null ? "" : username.strip().toLowerCase(java.util.Locale.ROOT));
  }

  private static String addressKey(String address) {
    return "address " + address;
  }
}
