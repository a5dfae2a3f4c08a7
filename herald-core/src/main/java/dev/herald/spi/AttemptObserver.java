package dev.herald.spi;

import dev.herald.DeliveryResult;

/**
 * Watches each attempt from its start to its result, on the engine's behalf: tracing, for one
 * ({@code dev.herald.tracing.AttemptObservations} makes each attempt a Micrometer Observation).
 * Set with {@link dev.herald.Herald.Builder#attemptObserver}. Calls must be quick and must not
 * throw; an exception is logged and the attempt goes on unobserved.
 */
public interface AttemptObserver {
  /** Observes nothing; attempts send the notice's own traceparent. */
  AttemptObserver NONE = delivery -> Observed.of(delivery.notice().traceparent());

  /**
   * An attempt is about to be handed to its channel.
   *
   * @param delivery the attempt, carrying the notice's stored traceparent
   * @return the running observation, ended once the attempt's result is known
   */
  Observed start(Delivery delivery);

  /** One attempt being observed. */
  interface Observed {
    /** The traceparent the channel sends: the attempt's own span's, or the notice's; null if none. */
    String traceparent();

    /**
     * The attempt ended.
     *
     * @param result what the attempt came to (a thrown or timed-out attempt as its {@code RETRY})
     * @param error what the channel threw or completed with, if it did; else null
     */
    void end(DeliveryResult result, Throwable error);

    /** An observation that only passes {@code traceparent} on. */
    static Observed of(String traceparent) {
      return new Observed() {
        @Override
        public String traceparent() {
          return traceparent;
        }

        @Override
        public void end(DeliveryResult result, Throwable error) {}
      };
    }
  }
}
