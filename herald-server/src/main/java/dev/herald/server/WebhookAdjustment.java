package dev.herald.server;

import java.util.List;
import java.util.OptionalInt;

/**
 * A change to the webhook channel's configured limits that a server feature (such as demo mode)
 * brings as a bean, so that the general configuration need not know the feature.
 */
public interface WebhookAdjustment {
  /** Hosts or networks to allow beside {@code herald.http.allow}. */
  List<String> allow();

  /** The circuit's failure threshold to use instead of the configured one, if any. */
  OptionalInt circuitFailureThreshold();
}
