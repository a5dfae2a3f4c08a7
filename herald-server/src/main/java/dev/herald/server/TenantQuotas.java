package dev.herald.server;

import dev.herald.NoticeReports;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-tenant quotas on creating notices: an intake rate ({@code maxRate}, a token bucket per tenant on
 * each server) and a live backlog ({@code maxBacklog}: notices not finished yet, counted in the
 * database at most once a second and added to as this server creates more). Past either, a create
 * is refused whole with 429 and a {@code Retry-After}, and nothing is written.
 */
final class TenantQuotas {
  private static final Pattern RATE = Pattern.compile("(\\d{1,9})\\s*/\\s*(\\d{0,6})\\s*(ms|s|m|h)");
  private static final long COUNT_EVERY_MS = 1_000;

  /** A rate: {@code permits} per {@code period}. */
  record Rate(long permits, Duration period) {
    double perNano() {
      return (double) permits / period.toNanos();
    }
  }

  private record Bucket(Rate rate, double tokens, long at) {}

  private record Count(long live, long countedAt) {}

  private final Tenants tenants;
  private final NoticeReports reports;
  private final Clock clock;
  private final Duration backlogRetryAfter;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
  private final Map<String, Count> counts = new ConcurrentHashMap<>();

  TenantQuotas(Tenants tenants, NoticeReports reports, Clock clock, Duration backlogRetryAfter) {
    this.tenants = tenants;
    this.reports = reports;
    this.clock = clock;
    this.backlogRetryAfter = backlogRetryAfter;
  }

  /** Reads {@code 100/s}, {@code 6000/m}, {@code 5/10s}; null stays null. */
  static String checkRate(String text) {
    if (text != null) {
      parse(text, "maxRate");
    }
    return text == null ? null : text.strip();
  }

  static Rate parse(String text, String field) {
    Matcher m = RATE.matcher(text.strip());
    if (!m.matches() || Long.parseLong(m.group(1)) < 1) {
      throw ApiException.invalid(field, "must be a rate such as 100/s, 6000/m, 20/h or 5/10s, was '" + text + "'");
    }
    long n = m.group(2).isEmpty() ? 1 : Long.parseLong(m.group(2));
    Duration unit = switch (m.group(3)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
    if (unit.isZero()) {
      throw ApiException.invalid(field, "must have a period longer than zero, was '" + text + "'");
    }
    return new Rate(Long.parseLong(m.group(1)), unit);
  }

  /**
   * Takes {@code n} notices from the tenant's quotas, or refuses them all.
   *
   * @throws ApiException 429 {@code quota_exceeded} with a Retry-After
   */
  void take(String tenant, int n) {
    Tenants.Tenant t = tenants.find(tenant).orElse(null);
    if (t == null) {
      return;
    }
    if (t.maxBacklog() != null) {
      long live = live(tenant);
      if (live + n > t.maxBacklog()) {
        throw ApiException.tooMany("tenant " + tenant + " has " + live + " live notices; " + n + " more would pass its"
            + " maxBacklog of " + t.maxBacklog() + ". Nothing was written; try again when notices have finished",
            backlogRetryAfter);
      }
    }
    if (t.maxRate() != null) {
      Rate rate = parse(t.maxRate(), "maxRate");
      if (n > rate.permits()) {
        throw ApiException.tooMany("tenant " + tenant + " may create " + t.maxRate() + "; a batch of " + n
            + " is more than one period allows. Nothing was written; send smaller batches", rate.period());
      }
      long now = System.nanoTime();
      Bucket[] refused = new Bucket[1];
      buckets.compute(tenant, (k, b) -> {
        Bucket cur = b == null || !b.rate().equals(rate) ? new Bucket(rate, rate.permits(), now) : b;
        double tokens = Math.min(rate.permits(), cur.tokens() + (now - cur.at()) * rate.perNano());
        if (tokens < n) {
          refused[0] = new Bucket(rate, tokens, now);
          return new Bucket(rate, tokens, now);
        }
        return new Bucket(rate, tokens - n, now);
      });
      if (refused[0] != null) {
        long waitNanos = (long) Math.ceil((n - refused[0].tokens()) / rate.perNano());
        throw ApiException.tooMany("tenant " + tenant + " is at its maxRate of " + t.maxRate()
            + ". Nothing was written; try again after Retry-After", Duration.ofNanos(waitNanos));
      }
    }
    if (t.maxBacklog() != null) {
      counts.computeIfPresent(tenant, (k, c) -> new Count(c.live() + n, c.countedAt()));
    }
  }

  /** The tenant's live notices: counted at most once a second, plus what this server created since. */
  private long live(String tenant) {
    long now = clock.millis();
    Count c = counts.get(tenant);
    if (c == null || now - c.countedAt() >= COUNT_EVERY_MS) {
      c = new Count(count(tenant), now);
      counts.put(tenant, c);
    }
    return c.live();
  }

  private long count(String tenant) {
    return reports.countLive(NoticeOwners.scope(tenant));
  }
}
