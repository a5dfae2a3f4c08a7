package dev.herald;

import dev.herald.schedule.RetrySchedule;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named kind of notice: where it goes and how it is retried, alerted and confirmed. Definitions
 * are data: stored in the database, listed and updated at run time, and built in code with {@link
 * #builder(String)}.
 *
 * @param name unique name, {@code [A-Za-z0-9._-]}, at most 200 characters
 * @param channel the channel that delivers it, e.g. {@code local} for in-process handlers
 * @param target where the channel sends it: for {@code local}, the handler's name; null when each
 *     notice gives its own ({@link #perNoticeTarget()}, for channels that allow it, such as {@code http})
 * @param retrySchedule how long to wait before each retry
 * @param maxAttempts attempts before the notice goes DEAD; -1 for unlimited
 * @param maxInterval cap on any wait between attempts; null for none
 * @param alertPolicy when failures raise alerts
 * @param confirmRequired whether a delivery only counts once the receiver confirms it
 * @param confirmTimeout how long to wait for a confirmation before delivering again
 * @param description what this kind of notice is for
 * @param options channel settings, e.g. {@code timeout} or {@code expected-body} for HTTP; keys
 *     {@code [a-z0-9.-]}, values one line of at most {@value #MAX_OPTION_VALUE} characters (a client
 *     certificate and key, sealed, fit), all of them together at most {@value #MAX_OPTIONS} characters
 * @param ordering whether notices sharing an ordering key are delivered one at a time, in enqueue
 *     order; {@link Ordering#NONE} (the default) for no ordering
 */
public record NoticeDefinition(
    String name,
    String channel,
    String target,
    RetrySchedule retrySchedule,
    int maxAttempts,
    Duration maxInterval,
    AlertPolicy alertPolicy,
    boolean confirmRequired,
    Duration confirmTimeout,
    String description,
    java.util.Map<String, String> options,
    Ordering ordering) {

  /** The channel of in-process handlers. */
  public static final String LOCAL_CHANNEL = "local";

  public static final int UNLIMITED = -1;
  public static final String DEFAULT_SCHEDULE = "10s, 1m, 5m, 30m, 1h";
  public static final int DEFAULT_MAX_ATTEMPTS = 10;
  public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofMinutes(10);

  /** The longest option value. */
  public static final int MAX_OPTION_VALUE = 16_000;
  /** The most characters of all options together, as stored. */
  public static final int MAX_OPTIONS = 64_000;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");
  private static final Pattern CHANNEL = Pattern.compile("[a-z][a-z0-9-]{0,49}");
  private static final Pattern OPTION_KEY = Pattern.compile("[a-z0-9.-]{1,100}");

  public NoticeDefinition {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidInputException(
          "name", "'" + name + "' must be 1 to 200 characters of letters, digits, '.', '_' or '-'");
    }
    if (channel == null || !CHANNEL.matcher(channel).matches()) {
      throw new InvalidInputException("channel", "'" + channel + "' must be a lower-case channel name such as local");
    }
    if (target != null && target.isBlank()) {
      throw new InvalidInputException("target", "must not be blank (for the local channel: the handler's name)");
    }
    if (target != null && target.length() > 2000) {
      throw new InvalidInputException("target", "must be at most 2000 characters, was " + target.length());
    }
    if (retrySchedule == null) {
      throw new InvalidInputException("retrySchedule", "must not be null");
    }
    if (maxAttempts < 1 && maxAttempts != UNLIMITED) {
      throw new InvalidInputException("maxAttempts", "must be >= 1, or -1 for unlimited; was " + maxAttempts);
    }
    if (maxInterval != null && (maxInterval.isNegative() || maxInterval.isZero()
        || maxInterval.compareTo(RetrySchedule.MAX_DELAY) > 0)) {
      throw new InvalidInputException("maxInterval", "must be positive and at most "
          + RetrySchedule.MAX_DELAY.toDays() + " days, was " + EngineSetting.shown(maxInterval));
    }
    Objects.requireNonNull(alertPolicy, "alertPolicy");
    if (confirmTimeout == null || confirmTimeout.isNegative() || confirmTimeout.isZero()
        || confirmTimeout.compareTo(RetrySchedule.MAX_DELAY) > 0) {
      throw new InvalidInputException("confirmTimeout", "must be positive and at most "
          + RetrySchedule.MAX_DELAY.toDays() + " days, was " + EngineSetting.shown(confirmTimeout));
    }
    if (description != null && description.length() > 2000) {
      throw new InvalidInputException("description", "must be at most 2000 characters, was " + description.length());
    }
    ordering = ordering == null ? Ordering.NONE : ordering;
    options = options == null ? java.util.Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(options));
    long total = 0;
    for (var e : options.entrySet()) {
      if (e.getKey() == null || !OPTION_KEY.matcher(e.getKey()).matches()) {
        throw new InvalidInputException("options", "key '" + e.getKey() + "' must be 1 to 100 of a-z, 0-9, '.', '-'");
      }
      if (e.getValue() == null || e.getValue().length() > MAX_OPTION_VALUE || e.getValue().indexOf('\n') >= 0) {
        throw new InvalidInputException("options." + e.getKey(), "must be one line of at most " + MAX_OPTION_VALUE
            + " characters");
      }
      total += e.getKey().length() + e.getValue().length() + 2;
    }
    if (total > MAX_OPTIONS) {
      throw new InvalidInputException("options", "take " + total + " characters together; the limit is " + MAX_OPTIONS);
    }
  }

  /** A definition without ordering (the form before ordering existed). */
  public NoticeDefinition(String name, String channel, String target, RetrySchedule retrySchedule, int maxAttempts,
      Duration maxInterval, AlertPolicy alertPolicy, boolean confirmRequired, Duration confirmTimeout,
      String description, java.util.Map<String, String> options) {
    this(name, channel, target, retrySchedule, maxAttempts, maxInterval, alertPolicy, confirmRequired,
        confirmTimeout, description, options, Ordering.NONE);
  }

  /**
   * Whether this definition has no target of its own: each of its notices gives one ({@link
   * NoticeRequest#target}), and a notice without one is refused at enqueue. Only channels that allow it
   * ({@link dev.herald.spi.Channel#perNoticeTargets()}) take such a definition.
   */
  public boolean perNoticeTarget() {
    return target == null;
  }

  /** A channel option, or {@code fallback} when the definition does not set it. */
  public String option(String key, String fallback) {
    return options.getOrDefault(key, fallback);
  }

  /** Starts a definition with the defaults: schedule {@value #DEFAULT_SCHEDULE}, 10 attempts. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** A builder preloaded with this definition, to derive a variant. */
  public Builder toBuilder() {
    Builder b = new Builder(name);
    b.channel = channel;
    b.target = target;
    b.perNoticeTarget = target == null;
    b.retrySchedule = retrySchedule;
    b.maxAttempts = maxAttempts;
    b.maxInterval = maxInterval;
    b.alertPolicy = alertPolicy;
    b.confirmRequired = confirmRequired;
    b.confirmTimeout = confirmTimeout;
    b.description = description;
    b.options.putAll(options);
    b.ordering = ordering;
    return b;
  }

  /** Whether a count of attempts (since the last manual resend) has used up the budget. */
  public boolean attemptsExhausted(int attemptsInBudget) {
    return maxAttempts != UNLIMITED && attemptsInBudget >= maxAttempts;
  }

  /** Fluent construction; {@link #build()} validates and names the first bad field. */
  public static final class Builder {
    private final String name;
    private String channel = LOCAL_CHANNEL;
    private String target;
    private boolean perNoticeTarget;
    private RetrySchedule retrySchedule;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration maxInterval;
    private AlertPolicy alertPolicy = AlertPolicy.finalFailure();
    private boolean confirmRequired;
    private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;
    private String description;
    private final java.util.Map<String, String> options = new java.util.TreeMap<>();
    private Ordering ordering = Ordering.NONE;

    private Builder(String name) {
      this.name = name;
    }

    /** Delivers to the in-process handler registered under {@code handlerName}. */
    public Builder handler(String handlerName) {
      return channel(LOCAL_CHANNEL, handlerName);
    }

    public Builder channel(String channelName, String channelTarget) {
      this.channel = channelName;
      this.target = channelTarget;
      this.perNoticeTarget = false;
      return this;
    }

    /**
     * Delivers through {@code channelName} to the target each notice gives ({@link
     * NoticeRequest#target}): the definition has none ({@link NoticeDefinition#perNoticeTarget()}), and
     * a notice that gives none is refused. Saving it needs a channel that allows it, such as {@code http}.
     */
    public Builder perNoticeTarget(String channelName) {
      this.channel = channelName;
      this.target = null;
      this.perNoticeTarget = true;
      return this;
    }

    public Builder retry(RetrySchedule schedule) {
      this.retrySchedule = schedule;
      return this;
    }

    /** Parses a schedule such as {@code 5s, 5m, 1h, 1d}; see {@link RetrySchedule#parse}. */
    public Builder retry(String schedule) {
      return retry(RetrySchedule.parse(schedule));
    }

    public Builder maxAttempts(int attempts) {
      this.maxAttempts = attempts;
      return this;
    }

    public Builder unlimitedAttempts() {
      return maxAttempts(UNLIMITED);
    }

    public Builder maxInterval(Duration cap) {
      this.maxInterval = cap;
      return this;
    }

    public Builder alert(AlertPolicy policy) {
      this.alertPolicy = policy;
      return this;
    }

    /** Deliveries count only once confirmed; unconfirmed ones are delivered again after {@code timeout}. */
    public Builder confirmWithin(Duration timeout) {
      this.confirmRequired = true;
      this.confirmTimeout = timeout;
      return this;
    }

    public Builder confirmRequired(boolean required) {
      this.confirmRequired = required;
      return this;
    }

    public Builder confirmTimeout(Duration timeout) {
      this.confirmTimeout = timeout;
      return this;
    }

    public Builder description(String text) {
      this.description = text;
      return this;
    }

    /**
     * The handler's exceptions (their class, a supertype, or a cause's) that fail a notice for good:
     * DEAD at once, with the alert, instead of a retry (option {@code fail-on}; {@code retry-on} lists
     * exceptions retried even so). For in-process handlers.
     */
    @SafeVarargs
    public final Builder failOn(Class<? extends Throwable>... types) {
      return option("fail-on", String.join(",", java.util.Arrays.stream(types).map(Class::getName).toList()));
    }

    /** Exceptions retried even when {@link #failOn} lists a supertype of theirs (option {@code retry-on}). */
    @SafeVarargs
    public final Builder retryOn(Class<? extends Throwable>... types) {
      return option("retry-on", String.join(",", java.util.Arrays.stream(types).map(Class::getName).toList()));
    }

    /** Sets a channel option, e.g. {@code option("timeout", "5s")}. */
    public Builder option(String key, String value) {
      options.put(key, value);
      return this;
    }

    /**
     * Delivers notices that share an ordering key one at a time, in enqueue order, across nodes;
     * {@code onDeadHead} says what the rest of a key does when its head goes DEAD.
     */
    public Builder ordered(Ordering onDeadHead) {
      this.ordering = onDeadHead;
      return this;
    }

    public NoticeDefinition build() {
      if (target == null && !perNoticeTarget) {
        throw new InvalidInputException("target", "must not be blank (for the local channel: the handler's name;"
            + " for notices that each give their own: perNoticeTarget(channel))");
      }
      RetrySchedule schedule = retrySchedule != null ? retrySchedule : RetrySchedule.parse(DEFAULT_SCHEDULE);
      return new NoticeDefinition(
          name, channel, target, schedule, maxAttempts, maxInterval, alertPolicy, confirmRequired,
          confirmTimeout, description, options, ordering);
    }
  }
}
