package dev.herald.tracing;

import dev.herald.Traceparent;
import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.handler.TracingObservationHandler;

/**
 * The span a Micrometer Tracing handler made for an observation, as a traceparent. Safe without
 * Micrometer Tracing on the class path: its classes are touched only when present.
 */
final class SpanTraceparent {
  private static final boolean PRESENT = present("io.micrometer.tracing.handler.TracingObservationHandler");

  private SpanTraceparent() {}

  /** Null without Micrometer Tracing, without a span, or with a no-op span. */
  static String of(Observation.Context context) {
    return PRESENT ? Reader.read(context) : null;
  }

  private static final class Reader {
    static String read(Observation.Context context) {
      TracingObservationHandler.TracingContext tracing = context.get(TracingObservationHandler.TracingContext.class);
      Span span = tracing == null ? null : tracing.getSpan();
      if (span == null) {
        return null;
      }
      TraceContext c = span.context();
      return Traceparent.of(c.traceId(), c.spanId(), Boolean.TRUE.equals(c.sampled()));
    }
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, SpanTraceparent.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
