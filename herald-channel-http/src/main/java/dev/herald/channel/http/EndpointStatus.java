package dev.herald.channel.http;

import java.time.Instant;

/**
 * One endpoint as the HTTP channel sees it now, for monitoring and the console.
 *
 * @param endpoint the origin, e.g. {@code https://example.com:443}
 * @param circuit the circuit breaker's state
 * @param inFlight requests running now
 * @param consecutiveFailures failed attempts in a row (timeouts, connection errors, 5xx, 408, 429)
 * @param openUntil when an open circuit lets a probe through; null unless open
 * @param lastFailure the last failure, e.g. {@code HTTP 503}; null if none yet
 * @param lastFailureAt when it happened; null if none yet
 * @param failingSince the first failure since the last success; null if the last attempt succeeded
 * @param maxRate the rate limit in force at the last delivery, e.g. {@code 100/s}; null for none
 * @param requestsPerSecond requests started in the last whole second
 * @param waitingForRate notices holding a turn under the rate limit, waiting for it
 * @param disabled whether deliveries wait for an operator to enable the endpoint again
 * @param disabledAt when it was disabled; null unless disabled
 * @param disabledReason why; null unless disabled
 */
public record EndpointStatus(
    String endpoint, Circuit circuit, int inFlight, int consecutiveFailures, Instant openUntil, String lastFailure,
    Instant lastFailureAt, Instant failingSince, String maxRate, int requestsPerSecond, int waitingForRate,
    boolean disabled, Instant disabledAt, String disabledReason) {

  /** A circuit breaker's states. */
  public enum Circuit {
    /** Healthy: requests go through. */
    CLOSED,
    /** Failing or asked to pause: deliveries are deferred without a request. */
    OPEN,
    /** The open period is over: one probe at a time; a good response closes it, a failure opens it again. */
    HALF_OPEN
  }
}
