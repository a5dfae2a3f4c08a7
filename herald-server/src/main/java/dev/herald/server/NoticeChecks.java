package dev.herald.server;

import static dev.herald.server.JsonInput.child;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.channel.http.HttpChannel;
import dev.herald.schedule.DurationText;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Checks the notice routes share: the schedule horizon, the callback URL's syntax and SSRF guard, error lists. */
final class NoticeChecks {
  static final int MAX_LISTED_ERRORS = 100;

  private final Herald herald;
  private final HttpChannel http;
  private final ServerProperties properties;

  NoticeChecks(Herald herald, HttpChannel http, ServerProperties properties) {
    this.herald = herald;
    this.http = http;
    this.properties = properties;
  }

  /**
   * Refuses fire times further ahead than {@code herald.server.max-schedule-ahead}: a year such as
   * +999999 is a typo, not a plan, and would sit in the table for ever.
   */
  void refuseBeyondHorizon(Instant fireAt, Duration delay, String path) {
    Duration horizon = properties.getMaxScheduleAhead();
    Instant limit = herald.clock().instant().plus(horizon);
    if (fireAt != null && fireAt.isAfter(limit)) {
      throw ApiException.invalid(child(path, "fireAt"), "'" + fireAt + "' is " + beyond(horizon, limit));
    }
    if (delay != null && delay.compareTo(horizon) > 0) {
      throw ApiException.invalid(child(path, "delay"), "'" + DurationText.format(delay) + "' is " + beyond(horizon, limit));
    }
  }

  /** Only for a refusal: built for every notice, this text was 2.6 % of a fresh server's create path. */
  private static String beyond(Duration horizon, Instant limit) {
    return "more than " + DurationText.format(horizon) + " ahead (herald.server.max-schedule-ahead); the latest accepted now is "
        + limit;
  }

  /** The SSRF guard and URL syntax, before anything is written. */
  void checkUrl(String url, String field) {
    if (url.isBlank() || url.length() > 2000 || url.strip().contains(" ")) {
      throw ApiException.invalid(field, "must be an http or https URL of at most 2000 characters");
    }
    try {
      http.validateTarget(url);
    } catch (InvalidInputException e) {
      throw ApiException.invalid(field, e.reason());
    }
  }

  /** Adds a 400's field errors to a batch's list (up to {@link #MAX_LISTED_ERRORS}); other statuses end the request. */
  static void collect(List<ApiException.FieldError> errors, ApiException e) {
    if (e.status() != 400) {
      throw e;
    }
    if (errors.size() < MAX_LISTED_ERRORS) {
      if (e.errors().isEmpty()) {
        errors.add(new ApiException.FieldError(e.field(), e.reason()));
      } else {
        errors.addAll(e.errors());
      }
    }
  }
}
