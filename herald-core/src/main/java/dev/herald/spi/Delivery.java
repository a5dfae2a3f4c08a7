package dev.herald.spi;

import dev.herald.Notice;
import dev.herald.NoticeDefinition;

/**
 * One attempt to hand to a channel.
 *
 * @param notice the notice as claimed
 * @param definition its definition
 * @param attempt this attempt's number, 1 for the first
 * @param traceparent the W3C {@code traceparent} to send with this attempt, so that the receiver
 *     continues the notice's trace: the attempt's own span when it is traced, else the notice's;
 *     null if the notice has none
 */
public record Delivery(Notice notice, NoticeDefinition definition, int attempt, String traceparent) {

  /** An attempt that sends the notice's own traceparent. */
  public Delivery(Notice notice, NoticeDefinition definition, int attempt) {
    this(notice, definition, attempt, notice.traceparent());
  }

  /** Where to deliver: the notice's own target if it has one, else its definition's. */
  public String target() {
    return notice.target() != null ? notice.target() : definition.target();
  }
}
