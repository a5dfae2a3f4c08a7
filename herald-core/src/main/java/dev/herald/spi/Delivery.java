package dev.herald.spi;

import dev.herald.Notice;
import dev.herald.NoticeDefinition;

/**
 * One attempt to hand to a channel.
 *
 * @param notice the notice as claimed
 * @param definition its definition
 * @param attempt this attempt's number, 1 for the first
 */
public record Delivery(Notice notice, NoticeDefinition definition, int attempt) {
  /** Where to deliver: the notice's own target if it has one, else its definition's. */
  public String target() {
    return notice.target() != null ? notice.target() : definition.target();
  }
}
