package dev.herald.engine;

import dev.herald.spi.AttemptObserver;
import java.util.function.Supplier;

/**
 * Where notices get their trace context and who watches their attempts.
 *
 * @param traceContext the current W3C traceparent of the thread that enqueues, for requests that
 *     bring none; it may return null
 * @param observer watches every attempt (tracing spans, say)
 */
public record Tracing(Supplier<String> traceContext, AttemptObserver observer) {
  public static final Tracing NONE = new Tracing(() -> null, AttemptObserver.NONE);

  public Tracing {
    traceContext = traceContext != null ? traceContext : () -> null;
    observer = observer != null ? observer : AttemptObserver.NONE;
  }
}
