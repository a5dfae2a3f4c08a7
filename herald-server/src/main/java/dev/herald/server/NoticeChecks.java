package dev.herald.server;

import static dev.herald.server.JsonInput.child;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.channel.http.HttpChannel;
import dev.herald.schedule.DurationText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Checks the notice routes share: the schedule horizon, the callback URL's syntax and SSRF guard, batches
 * read item by item with their error lists.
 */
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

  /** Reads one item of a batch at its path, e.g. {@code notices[3]}. */
  interface ItemReader<T> {
    T read(JsonNode item, String path);
  }

  /**
   * The batch {@code {"notices": [...]}} of a request body, each item read by {@code read}: every item
   * is read, and all their refusals answer together as one 400; any other status ends the request.
   */
  static <T> List<T> readItems(ObjectNode body, int maxBatch, ItemReader<T> read) {
    JsonInput.only(body, "", Set.of("notices"));
    ArrayNode items = JsonInput.batch(body, "", "notices", maxBatch);
    List<T> out = new ArrayList<>(items.size());
    List<ApiException.FieldError> errors = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      try {
        out.add(read.read(items.get(i), JsonInput.index("notices", i)));
      } catch (ApiException e) {
        collect(errors, e);
      } catch (InvalidInputException e) {
        errors.add(new ApiException.FieldError(e.field(), e.reason()));
      }
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid(errors);
    }
    return out;
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
