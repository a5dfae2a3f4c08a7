package dev.herald.tracing;

import dev.herald.Traceparent;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import java.util.function.Supplier;

/**
 * Micrometer Tracing for Herald: the current span as a W3C {@code traceparent}, for {@link
 * dev.herald.Herald.Builder#traceContext}, so that notices keep the trace of the transaction that
 * enqueued them without the caller passing it.
 *
 * <pre>{@code
 * Herald.builder().traceContext(HeraldTracing.currentTraceparent(tracer))
 * }</pre>
 */
public final class HeraldTracing {
  private HeraldTracing() {}

  /** The traceparent of {@code tracer}'s current span when it is called; null when there is none. */
  public static Supplier<String> currentTraceparent(Tracer tracer) {
    return () -> {
      TraceContext context = tracer.currentTraceContext().context();
      return context == null ? null : of(context);
    };
  }

  /** The traceparent of a trace context; null if it is not a valid one (a no-op tracer's, say). */
  public static String of(TraceContext context) {
    return Traceparent.of(context.traceId(), context.spanId(), Boolean.TRUE.equals(context.sampled()));
  }
}
