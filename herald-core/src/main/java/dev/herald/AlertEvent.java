package dev.herald;

import java.time.Instant;

/**
 * Raised when a definition's {@link AlertPolicy} says people should know about a failure.
 *
 * @param notice the notice after the failed attempt
 * @param failures failed attempts so far
 * @param finalFailure whether the notice is now DEAD
 * @param error the failed attempt's error
 * @param at when the alert was raised
 */
public record AlertEvent(Notice notice, int failures, boolean finalFailure, String error, Instant at) {}
