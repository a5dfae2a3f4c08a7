package dev.herald.channel.http;

import java.time.Duration;

/**
 * When an endpoint's circuit opens, and for how long.
 *
 * @param failureThreshold consecutive failures that open it
 * @param failureRate share of failures within {@code window} that opens it, once {@code minimumCalls} were made
 * @param minimumCalls calls in the window before the rate counts
 * @param window the (tumbling) window of the failure rate
 * @param openFor how long it stays open before a probe
 * @param probeWait how long deliveries wait while a half-open circuit's probe runs
 * @param disableAfter how long an endpoint fails without a success before it is disabled
 * @param disabledRecheck how long deliveries to a disabled endpoint are deferred at a time
 */
record CircuitSettings(int failureThreshold, double failureRate, int minimumCalls, Duration window, Duration openFor,
    Duration probeWait, Duration disableAfter, Duration disabledRecheck) {}
