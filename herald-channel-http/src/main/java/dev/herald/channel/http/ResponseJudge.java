package dev.herald.channel.http;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.schedule.DurationText;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Turns a receiver's response into the attempt's result and the attempt log's text: 2xx (with the
 * expected body, where one is set) is delivered, 410 is final, 429/503 honour Retry-After and pause
 * the endpoint, other answers are retried; the response's status, headers (cookies masked) and the
 * start of its body are logged. A success's log is compact unless option {@code full-success-log} is
 * set: no headers, which are the same each time and would be written for every delivered notice.
 */
final class ResponseJudge {
  /** Most of a response body read; the rest is not. */
  static final int BODY_LIMIT = 64 * 1024;
  /** Most of a response body written to the attempt log. */
  static final int LOGGED_BODY = 1_000;
  /** Most of a success's response body kept in its compact attempt log. */
  static final int COMPACT_BODY = 200;
  private static final int LOGGED_HEADERS = 40;
  private static final int LOGGED_HEADER_VALUE = 300;

  private final Clock clock;

  ResponseJudge(Clock clock) {
    this.clock = clock;
  }

  /** Turns a response into the attempt's result. */
  AttemptOutcome judge(HttpTransport.Answer r, Target t, HttpOptions o, StringBuilder log, long t0) {
    int status = r.status();
    HttpTransport.Answer body = r;
    String text = new String(body.body(), charsetOf(r.header("content-type")));
    String headline;
    DeliveryResult result;
    EndpointState.Verdict verdict = EndpointState.Verdict.RESPONDED;
    Duration pause = null;
    String failure = null;
    String statusText = "HTTP " + status + reason(status);

    if (status >= 200 && status < 300) {
      if (o.expectedBody() != null && !text.strip().equals(o.expectedBody())) {
        headline = statusText + " but the body is not the expected '" + o.expectedBody() + "'"
            + (body.truncated() ? " (it is longer than " + BODY_LIMIT / 1024 + " KiB)" : "");
        result = DeliveryResult.retry(headline);
      } else {
        headline = statusText + (o.expectedBody() != null ? " with the expected body" : "") + ": delivered";
        result = DeliveryResult.delivered(headline);
      }
    } else if (status == 410) {
      headline = statusText + ": the receiver says the endpoint is gone; not retrying";
      result = DeliveryResult.fail(headline);
    } else if (status >= 300 && status < 400) {
      headline = statusText + ": redirect to " + location(r, t) + " not followed";
      result = DeliveryResult.retry(headline);
    } else if (status == 429 || status == 503) {
      verdict = EndpointState.Verdict.FAILED;
      failure = statusText;
      String header = r.header("retry-after");
      Duration asked = header == null ? null : retryAfter(header, clock.instant());
      if (asked != null) {
        Duration wait = asked.compareTo(o.maxRetryAfter()) > 0 ? o.maxRetryAfter() : asked;
        headline = statusText + " with Retry-After: " + header + "; next attempt in no less than "
            + DurationText.format(wait) + (wait.equals(asked) ? "" : " (capped by option max-retry-after)")
            + ", and the endpoint paused as long";
        pause = wait;
        result = DeliveryResult.retryAfter(wait, headline);
      } else {
        headline = statusText + (header == null ? "" : " with a Retry-After that is neither seconds nor an HTTP date: "
            + header);
        result = DeliveryResult.retry(headline);
      }
    } else {
      headline = statusText;
      result = DeliveryResult.retry(headline);
      if (status >= 500 || status == 408) {
        verdict = EndpointState.Verdict.FAILED;
        failure = statusText;
      }
    }

    if (result.outcome() == DeliveryResult.Outcome.DELIVERED && !o.fullSuccessLog()) {
      return new AttemptOutcome(new DeliveryResult(result.outcome(), compactSuccess(headline, log, r, text, t0),
          result.retryAfter(), null), verdict, pause, failure);
    }
    log.append("< ").append(r.http2() ? "HTTP/2" : "HTTP/1.1").append(' ').append(status).append('\n');
    int shown = 0;
    for (Map.Entry<String, String> h : r.headers()) {
      if (h.getKey().startsWith(":")) {
        continue;
      }
      if (shown++ == LOGGED_HEADERS) {
        log.append("< (more headers not shown)\n");
      }
      if (shown <= LOGGED_HEADERS) {
        String value = h.getKey().equalsIgnoreCase("set-cookie") ? "****" : Attempt.bound(h.getValue(), LOGGED_HEADER_VALUE);
        log.append("< ").append(h.getKey().toLowerCase(Locale.ROOT)).append(": ").append(value).append('\n');
      }
    }
    if (text.isEmpty()) {
      log.append("< (empty body)\n");
    } else {
      log.append("<\n");
      for (String line : Attempt.bound(text, LOGGED_BODY).split("\n", -1)) {
        log.append("< ").append(line).append('\n');
      }
      if (body.truncated()) {
        log.append("< (body longer than ").append(BODY_LIMIT / 1024).append(" KiB; the rest was not read)\n");
      }
    }
    String detail = Attempt.bound(headline + "\n" + log + took(t0));
    result = new DeliveryResult(result.outcome(), detail, result.retryAfter(), null);
    return new AttemptOutcome(result, verdict, pause, failure);
  }

  /**
   * A success's attempt log without headers: the request line, notes such as a fail-over or a resend,
   * the status and the start of the body. Every delivered notice keeps one, so its size is paid on the
   * success path of every delivery; the headers are the same each time and a failure still logs them.
   */
  private static String compactSuccess(String headline, StringBuilder log, HttpTransport.Answer r, String text,
      long t0) {
    StringBuilder out = new StringBuilder(headline.length() + 160).append(headline).append('\n');
    int start = 0;
    for (int end; start < log.length(); start = end + 1) {
      end = log.indexOf("\n", start);
      if (end < 0) {
        end = log.length();
      }
      if (!isHeaderLine(log, start, end)) {
        out.append(log, start, end).append('\n');
      }
    }
    out.append("< ").append(r.http2() ? "HTTP/2" : "HTTP/1.1").append(' ').append(r.status()).append('\n');
    if (!text.isEmpty()) {
      out.append("< ").append(Attempt.bound(text.strip(), COMPACT_BODY).replace('\n', ' ')).append('\n');
    }
    return Attempt.bound(out.append(took(t0)).toString());
  }

  /** Whether {@code log[start, end)} is a request header line, {@code > name: value}. */
  private static boolean isHeaderLine(CharSequence log, int start, int end) {
    if (end - start < 4 || log.charAt(start) != '>' || log.charAt(start + 1) != ' ') {
      return false;
    }
    for (int i = start + 2; i < end; i++) {
      char c = log.charAt(i);
      if (c == ':') {
        return i > start + 2;
      }
      if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c >= 'A' && c <= 'Z')) {
        return false;
      }
    }
    return false;
  }

  static String took(long t0) {
    return "took " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms";
  }

  private static String location(HttpTransport.Answer r, Target t) {
    String raw = r.header("location");
    if (raw == null) {
      return "(no Location header)";
    }
    try {
      return t.uri().resolve(URI.create(raw.strip())).toString();
    } catch (IllegalArgumentException e) {
      return raw;
    }
  }

  private static Charset charsetOf(String contentType) {
    String type = contentType == null ? "" : contentType;
    if (type.indexOf('=') < 0) {
      return StandardCharsets.UTF_8; // no parameters: the common case, without splitting
    }
    for (String part : type.split(";")) {
      String p = part.strip();
      if (p.regionMatches(true, 0, "charset=", 0, 8)) {
        try {
          return Charset.forName(p.substring(8).replace("\"", "").strip());
        } catch (RuntimeException e) {
          return StandardCharsets.UTF_8;
        }
      }
    }
    return StandardCharsets.UTF_8;
  }

  private static String reason(int status) {
    String phrase = switch (status) {
      case 200 -> "OK";
      case 201 -> "Created";
      case 202 -> "Accepted";
      case 204 -> "No Content";
      case 301 -> "Moved Permanently";
      case 302 -> "Found";
      case 303 -> "See Other";
      case 307 -> "Temporary Redirect";
      case 308 -> "Permanent Redirect";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 410 -> "Gone";
      case 413 -> "Content Too Large";
      case 429 -> "Too Many Requests";
      case 500 -> "Internal Server Error";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      default -> null;
    };
    return phrase == null ? "" : " " + phrase;
  }

  /**
   * Reads a Retry-After value: delta-seconds or an HTTP date (RFC 9110). Null if it is neither; a
   * date in the past is zero.
   */
  static Duration retryAfter(String value, Instant now) {
    String v = value.strip();
    if (!v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      // beyond ten digits (over 300 years) the cap applies anyway
      return Duration.ofSeconds(v.length() > 10 ? 9_999_999_999L : Long.parseLong(v));
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at).truncatedTo(ChronoUnit.MILLIS);
      return d.isNegative() ? Duration.ZERO : d;
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
