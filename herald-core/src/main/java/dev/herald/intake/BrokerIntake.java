package dev.herald.intake;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the broker intakes (a RabbitMQ queue's, a Kafka topic's) have in common: the counts they
 * report for metrics and health, and how often a pause is worth a log line.
 */
public abstract class BrokerIntake implements AutoCloseable {
  /** A paused intake logs its first refusal and then one in this many, not every retry. */
  private static final int LOG_PAUSE_EVERY = 50;

  private final AtomicLong taken = new AtomicLong();
  private final AtomicLong parked = new AtomicLong();
  private final AtomicLong pauses = new AtomicLong();

  protected BrokerIntake() {}

  /** Messages (records) that became notices (or matched an earlier one by key). */
  public final long taken() {
    return taken.get();
  }

  /** Messages (records) sent to the parking queue (topic). */
  public final long parked() {
    return parked.get();
  }

  /** Refusals waited out (back-pressure or database away). */
  public final long pauses() {
    return pauses.get();
  }

  protected final void countTaken() {
    taken.incrementAndGet();
  }

  protected final void countParked() {
    parked.incrementAndGet();
  }

  /** Counts a refusal waited out; true for the first and then one in 50: log those. */
  protected final boolean countPause() {
    return pauses.getAndIncrement() % LOG_PAUSE_EVERY == 0;
  }

  /** Stops consuming; what was not yet taken in is read again by the next consumer. */
  @Override
  public abstract void close();
}
