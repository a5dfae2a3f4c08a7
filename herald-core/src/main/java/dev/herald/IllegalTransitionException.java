package dev.herald;

import java.util.UUID;

/** A notice was asked to move between two statuses that the status machine does not connect. */
public class IllegalTransitionException extends HeraldException {
  private final UUID noticeId;
  private final NoticeStatus from;
  private final NoticeStatus to;

  public IllegalTransitionException(UUID noticeId, NoticeStatus from, NoticeStatus to, String why) {
    super("notice " + noticeId + ": cannot go from " + from + " to " + to + (why == null ? "" : " (" + why + ")"));
    this.noticeId = noticeId;
    this.from = from;
    this.to = to;
  }

  public UUID noticeId() {
    return noticeId;
  }

  public NoticeStatus from() {
    return from;
  }

  public NoticeStatus to() {
    return to;
  }
}
