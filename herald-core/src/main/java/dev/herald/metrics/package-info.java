/**
 * Micrometer metrics for Herald ({@link dev.herald.metrics.HeraldMetrics}); needs {@code
 * io.micrometer:micrometer-core} on the class path, an optional dependency of herald-core.
 */
package dev.herald.metrics;
