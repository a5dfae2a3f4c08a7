package dev.herald;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * One try at delivering a notice.
 *
 * @param noticeId the notice
 * @param number 1 for the first attempt
 * @param startedAt when it started
 * @param duration how long the channel took
 * @param outcome how it ended
 * @param detail error or response summary, bounded in size
 * @param node the node that made it
 */
public record Attempt(
    UUID noticeId,
    int number,
    Instant startedAt,
    Duration duration,
    DeliveryResult.Outcome outcome,
    String detail,
    String node) {

  /** Longest detail kept in the attempt log; longer text is cut with a marker. */
  public static final int MAX_DETAIL = 4000;

  /** Cuts {@code text} to {@link #MAX_DETAIL} characters. */
  public static String bound(String text) {
    return bound(text, MAX_DETAIL);
  }

  /** Cuts {@code text} to at most {@code max} characters, marking the cut. */
  public static String bound(String text, int max) {
    if (text == null || text.length() <= max) {
      return text;
    }
    String marker = "…[" + (text.length() - max) + " more chars]";
    return text.substring(0, Math.max(0, max - marker.length())) + marker;
  }
}
