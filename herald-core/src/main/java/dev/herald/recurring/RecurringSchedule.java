package dev.herald.recurring;

import dev.herald.InvalidInputException;
import dev.herald.events.Tenancy;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.regex.Pattern;

/**
 * A recurring notice: a notice of {@code definition} with {@code payload} at every slot of a cron
 * expression in a time zone, or of a fixed rate. Each slot makes exactly one notice, whichever node
 * finds it due first (its slot key, {@code <tenant>:<name>:<slot>}, is unique). {@code {{slot}}} in
 * the payload becomes the slot's time (ISO-8601, UTC) and {@code {{schedule}}} the schedule's name.
 *
 * @param cron a cron expression ({@link CronExpression}), or null for a fixed rate
 * @param zone the time zone of the cron expression's wall-clock times (UTC by default)
 * @param every the fixed rate (at least 1s), or null for a cron expression
 * @param anchor the fixed rate's first slot; slots are {@code anchor + k * every} (null: when first saved)
 * @param missed what happens to slots that passed unfired while no node ran (or more than {@link
 *     Recurring#MISSED_AFTER} ago)
 * @param nextSlot the next slot not yet fired (read only; null if there is none)
 * @param lastSlot the last slot fired (read only)
 * @param skippedSlots slots passed over by the missed-slot policy so far (read only)
 * @param lastError why the last slot could not fire (an unknown definition, say); null once one does
 */
public record RecurringSchedule(
    String tenant, String name, String description, String definition, String payload, String cron, ZoneId zone,
    Duration every, Instant anchor, MissedSlots missed, boolean paused, Instant nextSlot, Instant lastSlot,
    long skippedSlots, String lastError, Instant createdAt, Instant updatedAt) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  static final Duration MIN_EVERY = Duration.ofSeconds(1);
  static final Duration MAX_EVERY = Duration.ofDays(366);

  /** What a schedule does with slots that passed while nothing fired them (downtime). */
  public enum MissedSlots {
    /** One notice for the latest missed slot; the others are skipped. The default. */
    FIRE_ONCE,
    /** One notice for every missed slot, in order (at most 1,000 per poll). */
    FIRE_ALL,
    /** None: the schedule goes on at its next slot. */
    SKIP
  }

  /** @throws InvalidInputException naming the field */
  public RecurringSchedule {
    tenant = Tenancy.check(tenant, "tenant");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidInputException("name", "'" + name + "' must be 1 to 100 of letters, digits, '.', '_' or '-',"
          + " starting with a letter or digit");
    }
    if (description != null && description.length() > 2000) {
      throw new InvalidInputException("description", "must be at most 2000 characters");
    }
    if (definition == null || definition.isBlank()) {
      throw new InvalidInputException("definition", "is required: the definition each slot's notice belongs to");
    }
    if (payload == null) {
      throw new InvalidInputException("payload", "is required: the JSON each notice carries");
    }
    if ((cron == null) == (every == null)) {
      throw new InvalidInputException(cron == null ? "cron" : "every", "give either a cron expression or a fixed rate"
          + " (every), " + (cron == null ? "one of them" : "not both"));
    }
    if (cron != null) {
      cron = CronExpression.parse(cron).toString();
    }
    zone = zone == null ? ZoneOffset.UTC : zone;
    if (every != null && (every.compareTo(MIN_EVERY) < 0 || every.compareTo(MAX_EVERY) > 0)) {
      throw new InvalidInputException("every", "must be from 1s to 366 days, was " + every);
    }
    if (every == null && anchor != null) {
      throw new InvalidInputException("anchor", "goes with a fixed rate (every), not a cron expression");
    }
    missed = missed == null ? MissedSlots.FIRE_ONCE : missed;
  }

  /** A schedule named {@code name}; set its definition, payload and cron or rate. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  public Builder toBuilder() {
    Builder b = new Builder(name).tenant(tenant).description(description).definition(definition).payload(payload)
        .missed(missed).paused(paused);
    b.cron = cron;
    b.zone = zone;
    b.every = every;
    b.anchor = anchor;
    return b;
  }

  /** The time zone by id, e.g. {@code Europe/Berlin}. @throws InvalidInputException naming {@code zone} */
  public static ZoneId zone(String id) {
    try {
      return id == null || id.isBlank() ? ZoneOffset.UTC : ZoneId.of(id.strip());
    } catch (DateTimeException e) {
      throw new InvalidInputException("zone", "'" + id + "' is not a time zone id such as Europe/Berlin or UTC");
    }
  }

  /** The first slot strictly after {@code t}; null if there is none (a cron expression that stops matching). */
  public Instant slotAfter(Instant t) {
    if (cron != null) {
      return parsed(cron).next(t, zone);
    }
    Instant a = anchor == null ? Instant.EPOCH : anchor;
    if (t.isBefore(a)) {
      return a;
    }
    long everyMs = every.toMillis();
    long k = Math.floorDiv(t.toEpochMilli() - a.toEpochMilli(), everyMs) + 1;
    return a.plusMillis(k * everyMs);
  }

  private static final java.util.Map<String, CronExpression> PARSED = new java.util.concurrent.ConcurrentHashMap<>();

  private static CronExpression parsed(String cron) {
    CronExpression c = PARSED.get(cron);
    if (c == null) {
      if (PARSED.size() > 1_000) {
        PARSED.clear();
      }
      c = CronExpression.parse(cron);
      PARSED.put(cron, c);
    }
    return c;
  }

  /** The payload of the notice of {@code slot}. */
  public String payloadFor(Instant slot) {
    return payload.replace("{{slot}}", slot.toString()).replace("{{schedule}}", name);
  }

  /** The slot key: unique per tenant, schedule and slot (the notice's idempotency key). */
  public String slotKey(Instant slot) {
    return "recurring:" + tenant + ":" + name + ":" + slot.toEpochMilli();
  }

  /** Whether {@code other} has the same cadence: a change of either moves the next slot. */
  boolean sameCadence(RecurringSchedule other) {
    return java.util.Objects.equals(cron, other.cron) && zone.equals(other.zone)
        && java.util.Objects.equals(every, other.every) && java.util.Objects.equals(anchor, other.anchor);
  }

  /** Builds a schedule; {@link #build()} checks it. */
  public static final class Builder {
    private String tenant;
    private final String name;
    private String description;
    private String definition;
    private String payload = "{}";
    private String cron;
    private ZoneId zone;
    private Duration every;
    private Instant anchor;
    private MissedSlots missed;
    private boolean paused;

    private Builder(String name) {
      this.name = name;
    }

    public Builder tenant(String t) {
      this.tenant = t;
      return this;
    }

    public Builder description(String d) {
      this.description = d;
      return this;
    }

    public Builder definition(String d) {
      this.definition = d;
      return this;
    }

    /** The notices' JSON; {@code {{slot}}} and {@code {{schedule}}} are replaced. Default {@code {}}. */
    public Builder payload(String p) {
      this.payload = p;
      return this;
    }

    /** At the slots of a cron expression in {@code zone}. */
    public Builder cron(String expression, ZoneId zone) {
      this.cron = expression;
      this.zone = zone;
      this.every = null;
      this.anchor = null;
      return this;
    }

    /** At a fixed rate, the first slot at {@code anchor} (null: when first saved). */
    public Builder every(Duration rate, Instant anchor) {
      this.every = rate;
      this.anchor = anchor;
      this.cron = null;
      return this;
    }

    public Builder missed(MissedSlots policy) {
      this.missed = policy;
      return this;
    }

    public Builder paused(boolean p) {
      this.paused = p;
      return this;
    }

    public RecurringSchedule build() {
      return new RecurringSchedule(tenant, name, description, definition, payload, cron, zone, every, anchor, missed,
          paused, null, null, 0, null, null, null);
    }
  }
}
