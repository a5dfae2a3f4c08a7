package dev.herald;

/**
 * One node's in-memory counts at a moment, for metrics and health.
 *
 * @param held notices claimed and held in memory (up to {@code maxHeld}), whatever their stage
 * @param waitingForSlot due notices waiting for a free delivery slot
 * @param delivering attempts running now
 * @param outcomesUnwritten attempt outcomes queued for the group-commit writers
 * @param openCircuits receivers whose circuit is open (callers deferred)
 * @param halfOpenCircuits receivers whose circuit lets probes through
 */
public record EngineStats(
    int held, int waitingForSlot, int delivering, int outcomesUnwritten, int openCircuits, int halfOpenCircuits) {}
