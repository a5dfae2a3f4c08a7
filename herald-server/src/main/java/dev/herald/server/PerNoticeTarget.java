package dev.herald.server;

import dev.herald.NoticeDefinition;

/**
 * Definitions whose notices each give their own {@code callbackUrl} (such as the built-in {@code
 * callback}): the one place that knows how such a definition is stored. The core requires a target,
 * so it holds a URL under {@code .invalid}, which never resolves (RFC 2606): nothing is ever sent
 * there, and every other class asks {@link #of} instead of comparing URLs.
 */
final class PerNoticeTarget {
  private static final String STORED = "https://per-notice-callback-url.invalid/";

  private PerNoticeTarget() {}

  /** Whether each notice of {@code d} must give its own URL. */
  static boolean of(NoticeDefinition d) {
    return STORED.equals(d.target());
  }

  /** Whether {@code url}, one of a definition's targets, stands for "each notice's own URL". */
  static boolean is(String url) {
    return STORED.equals(url);
  }

  /** The target to store for a definition given {@code target}; none means each notice gives its own. */
  static String stored(String target) {
    return target == null ? STORED : target;
  }

  /** The target as the API shows it: none for a definition whose notices give their own. */
  static String shown(NoticeDefinition d) {
    return of(d) ? null : d.target();
  }
}
