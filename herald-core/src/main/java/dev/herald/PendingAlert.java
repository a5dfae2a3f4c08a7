package dev.herald;

import java.time.Instant;
import java.util.UUID;

/**
 * An alert waiting in the outbox ({@code herald_alert}): written in the same transaction as the
 * outcome that raised it, and taken out by {@link Alerts#drain}.
 *
 * @param id the alert's own id (UUIDv7: ordered by when it was raised)
 * @param noticeId the notice whose failure raised it
 * @param definition the notice's definition
 * @param endpoint {@code scheme://host:port} of the http(s) URL the notice went to, or null for other targets
 * @param failures failed attempts of the notice so far
 * @param finalFailure whether the notice is now DEAD
 * @param error the failed attempt's error
 * @param raisedAt when the alert was raised
 */
public record PendingAlert(UUID id, UUID noticeId, String definition, String endpoint, int failures,
    boolean finalFailure, String error, Instant raisedAt) {

  /**
   * The endpoint a notice goes to: the {@link Origins origin} of its target, the notice's own or else
   * its definition's, when that is an http(s) URL; the first one of a fail-over list. Null for any
   * other target (a queue, mail recipients, a handler).
   */
  public static String endpointOf(NoticeDefinition definition, String noticeTarget) {
    String target = noticeTarget != null ? noticeTarget : definition == null ? null : definition.target();
    String first = Targets.firstOf(target);
    return first == null ? null : Origins.of(first);
  }
}
