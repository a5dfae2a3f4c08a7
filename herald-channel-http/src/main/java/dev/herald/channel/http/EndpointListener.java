package dev.herald.channel.http;

/**
 * Hears about endpoints changing state, e.g. to raise an alert and to store the disabled flag where
 * it survives a restart. Called on the delivering thread: return quickly, do not throw.
 */
public interface EndpointListener {
  /** The endpoint failed without a success for the channel's {@code disableAfter}: its notices now wait. */
  default void onDisabled(EndpointStatus endpoint) {}
}
