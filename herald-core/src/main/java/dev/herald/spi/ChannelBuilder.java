package dev.herald.spi;

import dev.herald.InvalidInputException;
import dev.herald.health.PeerHealth;
import java.time.Duration;

/**
 * What every channel's builder sets: the name definitions use, how long a delivery over the
 * channel's limit is deferred, and how often a peer still down is logged again. A channel's {@code
 * Builder} extends it with itself as {@code B}, so that the setters chain.
 *
 * @param <B> the channel's builder
 */
public abstract class ChannelBuilder<B extends ChannelBuilder<B>> {
  private String name;
  private Duration busyDelay = Duration.ofMillis(200);
  private Duration healthLogEvery = PeerHealth.DEFAULT_REMIND_EVERY;
  private java.time.Clock clock = java.time.Clock.systemUTC();

  /** @param defaultName the channel's usual name, e.g. {@code http} */
  protected ChannelBuilder(String defaultName) {
    this.name = defaultName;
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /** The name definitions use; the channel's usual one by default. Two channels of a kind need two names. */
  public B name(String channelName) {
    this.name = channelName;
    return self();
  }

  /** How long a delivery over the channel's limit of work in flight is deferred; 200ms by default. */
  public B busyDelay(Duration delay) {
    this.busyDelay = delay;
    return self();
  }

  /** How often a peer still down is logged again (WARN, with the failures since); 5m by default. */
  public B healthLogEvery(Duration interval) {
    positive(interval, "healthLogEvery");
    this.healthLogEvery = interval;
    return self();
  }

  /**
   * The channel's time: since when a peer is down, and what else the channel dates (a webhook's
   * timestamp, circuits, Retry-After dates); the system clock by default.
   */
  public B clock(java.time.Clock time) {
    this.clock = java.util.Objects.requireNonNull(time, "clock");
    return self();
  }

  /** The clock set so far. */
  public final java.time.Clock clock() {
    return clock;
  }

  /** The name set so far. */
  public final String name() {
    return name;
  }

  /** The busy delay set so far. */
  public final Duration busyDelay() {
    return busyDelay;
  }

  /** The health log interval set so far. */
  public final Duration healthLogEvery() {
    return healthLogEvery;
  }

  /** @throws InvalidInputException naming {@code name} if it is blank */
  protected final void checkName() {
    if (name == null || name.isBlank()) {
      throw new InvalidInputException("name", "must not be blank");
    }
  }

  /** @throws InvalidInputException naming {@code field} unless {@code d} is longer than zero */
  protected static void positive(Duration d, String field) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidInputException(field, "must be positive, was " + d);
    }
  }
}
