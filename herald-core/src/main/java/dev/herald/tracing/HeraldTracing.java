package dev.herald.tracing;

import dev.herald.Traceparent;
import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;
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
  private static final boolean TRACING_PRESENT = present("io.micrometer.tracing.handler.TracingObservationHandler");

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

  /** The span a tracing handler made for an observation, as a traceparent; null without Micrometer Tracing or span. */
  static String traceparentOf(Observation.Context context) {
    return TRACING_PRESENT ? SpanOf.traceparent(context) : null;
  }

  /** Touches Micrometer Tracing's classes only when they are present. */
  private static final class SpanOf {
    static String traceparent(Observation.Context context) {
      TracingObservationHandler.TracingContext tracing = context.get(TracingObservationHandler.TracingContext.class);
      Span span = tracing == null ? null : tracing.getSpan();
      return span == null ? null : of(span.context());
    }
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, HeraldTracing.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
