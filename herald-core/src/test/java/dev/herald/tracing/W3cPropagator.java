package dev.herald.tracing;

import dev.herald.Traceparent;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.util.List;

/** W3C propagation for the test tracer, as the OpenTelemetry and Brave bridges do it. */
final class W3cPropagator implements Propagator {
  private final SimpleTracer tracer;

  W3cPropagator(SimpleTracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public List<String> fields() {
    return List.of(Traceparent.HEADER);
  }

  @Override
  public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
    setter.set(carrier, Traceparent.HEADER, HeraldTracing.of(context));
  }

  @Override
  public <C> Span.Builder extract(C carrier, Getter<C> getter) {
    String tp = getter.get(carrier, Traceparent.HEADER);
    Span.Builder b = tracer.spanBuilder();
    if (Traceparent.isValid(tp)) {
      b.setParent(tracer.traceContextBuilder().traceId(Traceparent.traceId(tp)).spanId(tp.substring(36, 52))
          .sampled(tp.endsWith("01")).build());
    }
    return b;
  }
}
