package dev.herald.events;

import dev.herald.NoticeStatus;
import java.time.Instant;
import java.util.UUID;

/**
 * An event's delivery to one endpoint: the notice it became, as it stands now.
 *
 * @param endpointId the endpoint
 * @param noticeId its notice: the attempt log, resend and cancel are the notice's
 * @param status the notice's status; null once its history was purged
 * @param attempts attempts made so far
 * @param lastError the last failed attempt's error; null after a success
 * @param lastAttemptAt when the last attempt started; null before the first
 */
public record EventDelivery(String endpointId, UUID noticeId, NoticeStatus status, int attempts, String lastError,
    Instant lastAttemptAt) {

  /** Whether the endpoint took it (delivered, or delivered and waiting for its confirmation). */
  public boolean taken() {
    return status == NoticeStatus.SUCCEEDED || status == NoticeStatus.AWAITING_CONFIRM;
  }
}
