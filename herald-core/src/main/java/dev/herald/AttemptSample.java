package dev.herald;

import java.time.Instant;

/**
 * One attempt as charts read it ({@link NoticeReports#attemptSamples}).
 *
 * @param startedAt when the attempt started
 * @param outcome what it came to
 * @param number 1 for a notice's first attempt
 * @param fireAt the notice's fire time, from which a first attempt's lateness is measured
 */
public record AttemptSample(Instant startedAt, DeliveryResult.Outcome outcome, int number, Instant fireAt) {}
