package dev.herald.channel.http;

import dev.herald.DeliveryResult;
import java.time.Duration;

/**
 * What an attempt achieved, and what it says about the endpoint.
 *
 * @param result the attempt's result for the engine
 * @param verdict how the attempt counts for the endpoint's circuit
 * @param pause a pause the endpoint asked for (Retry-After on 429/503); null if none
 * @param failure what went wrong, for the endpoint's status; null unless the verdict is FAILED
 */
record AttemptOutcome(DeliveryResult result, EndpointState.Verdict verdict, Duration pause, String failure) {
  static AttemptOutcome neutral(DeliveryResult result) {
    return new AttemptOutcome(result, EndpointState.Verdict.NEUTRAL, null, null);
  }
}
