package dev.herald;

import java.util.Locale;

/**
 * When failures of a definition's notices raise an {@link AlertEvent}.
 *
 * <p>Text forms (for storage and configuration): {@code final-failure}, {@code every-failure},
 * {@code never}, {@code after:N}.
 *
 * @param kind the trigger
 * @param threshold for {@link Kind#AFTER_FAILURES}: the failed attempt that raises the alert (once)
 */
public record AlertPolicy(Kind kind, int threshold) {

  /** Alert triggers, from document 000. */
  public enum Kind {
    FINAL_FAILURE,
    EVERY_FAILURE,
    NEVER,
    AFTER_FAILURES
  }

  public AlertPolicy {
    if (kind == null) {
      throw new InvalidInputException("alertPolicy", "must not be null");
    }
    if (kind == Kind.AFTER_FAILURES && threshold < 1) {
      throw new InvalidInputException("alertPolicy", "after:N needs N >= 1, was " + threshold);
    }
    if (kind != Kind.AFTER_FAILURES) {
      threshold = 0;
    }
  }

  public static AlertPolicy finalFailure() {
    return new AlertPolicy(Kind.FINAL_FAILURE, 0);
  }

  public static AlertPolicy everyFailure() {
    return new AlertPolicy(Kind.EVERY_FAILURE, 0);
  }

  public static AlertPolicy never() {
    return new AlertPolicy(Kind.NEVER, 0);
  }

  /** Alert once, when the {@code n}-th consecutive attempt has failed. */
  public static AlertPolicy afterFailures(int n) {
    return new AlertPolicy(Kind.AFTER_FAILURES, n);
  }

  /**
   * Decides whether a failed attempt raises an alert.
   *
   * @param failures failed attempts of the notice so far, this one included
   * @param finalFailure whether this failure made the notice DEAD
   */
  public boolean alertsOn(int failures, boolean finalFailure) {
    return switch (kind) {
      case FINAL_FAILURE -> finalFailure;
      case EVERY_FAILURE -> true;
      case NEVER -> false;
      case AFTER_FAILURES -> failures == threshold;
    };
  }

  /** Reads the text form; errors name the field {@code alertPolicy}. */
  public static AlertPolicy parse(String text) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException("alertPolicy", "must not be blank");
    }
    String t = text.trim().toLowerCase(Locale.ROOT);
    switch (t) {
      case "final-failure":
        return finalFailure();
      case "every-failure":
        return everyFailure();
      case "never":
        return never();
      default:
        break;
    }
    if (t.startsWith("after:")) {
      String n = t.substring("after:".length()).trim();
      try {
        return afterFailures(Integer.parseInt(n));
      } catch (NumberFormatException e) {
        throw new InvalidInputException("alertPolicy", "'" + text + "': N in after:N must be a whole number");
      }
    }
    throw new InvalidInputException(
        "alertPolicy", "'" + text + "' is not one of final-failure, every-failure, never, after:N");
  }

  /** The text form, which {@link #parse} reads back. */
  public String text() {
    return switch (kind) {
      case FINAL_FAILURE -> "final-failure";
      case EVERY_FAILURE -> "every-failure";
      case NEVER -> "never";
      case AFTER_FAILURES -> "after:" + threshold;
    };
  }

  @Override
  public String toString() {
    return text();
  }
}
