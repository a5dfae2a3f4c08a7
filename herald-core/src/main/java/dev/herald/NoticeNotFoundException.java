package dev.herald;

import java.util.UUID;

/** No live or archived notice has the given id. */
public class NoticeNotFoundException extends HeraldException {
  private final UUID noticeId;

  public NoticeNotFoundException(UUID noticeId) {
    super("notice " + noticeId + " not found");
    this.noticeId = noticeId;
  }

  public UUID noticeId() {
    return noticeId;
  }
}
