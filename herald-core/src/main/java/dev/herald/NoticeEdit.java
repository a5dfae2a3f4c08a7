package dev.herald;

import java.time.Instant;

/**
 * Changes to a notice not yet delivered (document 002's batch edit). A null field stays as it is.
 *
 * @param payload new JSON payload
 * @param fireAt new fire time (the notice becomes due then)
 * @param target new target, e.g. a callback URL
 */
public record NoticeEdit(String payload, Instant fireAt, String target) {
  public static NoticeEdit payload(String json) {
    return new NoticeEdit(json, null, null);
  }

  public static NoticeEdit fireAt(Instant time) {
    return new NoticeEdit(null, time, null);
  }

  public static NoticeEdit target(String where) {
    return new NoticeEdit(null, null, where);
  }
}
