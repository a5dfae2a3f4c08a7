package dev.herald.tracing;

import dev.herald.DeliveryResult;
import dev.herald.spi.AttemptObserver;
import dev.herald.spi.Delivery;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;

/**
 * Makes each attempt a Micrometer Observation named {@value #NAME}, so that OpenTelemetry or Brave
 * (through Micrometer Tracing) export it as a span in the notice's trace, and meter handlers time
 * it. Low-cardinality keys: {@code definition}, {@code channel}, {@code outcome}; high-cardinality:
 * {@code notice.id}, {@code attempt}. The channel sends the attempt's own span as {@code
 * traceparent} when a tracer made one, else the notice's.
 *
 * <pre>{@code
 * Herald.builder().attemptObserver(new AttemptObservations(observationRegistry))
 * }</pre>
 */
public final class AttemptObservations implements AttemptObserver {
  /** The observation's name. */
  public static final String NAME = "herald.attempt";

  private final ObservationRegistry registry;

  public AttemptObservations(ObservationRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Observed start(Delivery delivery) {
    AttemptContext context = new AttemptContext(delivery);
    Observation observation = Observation.createNotStarted(NAME, () -> context, registry)
        .contextualName("herald attempt " + delivery.definition().name())
        .lowCardinalityKeyValue("definition", delivery.definition().name())
        .lowCardinalityKeyValue("channel", delivery.definition().channel())
        .highCardinalityKeyValue("notice.id", delivery.notice().id().toString())
        .highCardinalityKeyValue("attempt", Integer.toString(delivery.attempt()))
        .start();
    String own = SpanTraceparent.of(context);
    String traceparent = own != null ? own : delivery.notice().traceparent();
    return new Observed() {
      @Override
      public String traceparent() {
        return traceparent;
      }

      @Override
      public void end(DeliveryResult result, Throwable error) {
        observation.lowCardinalityKeyValue("outcome", result.outcome().name().toLowerCase(Locale.ROOT));
        if (error != null) {
          observation.error(error);
        }
        observation.stop();
      }
    };
  }
}
