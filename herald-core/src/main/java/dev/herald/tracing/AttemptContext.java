package dev.herald.tracing;

import dev.herald.Traceparent;
import dev.herald.spi.Delivery;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.HashMap;
import java.util.Map;

/**
 * The context of one {@code herald.attempt} observation. A receiver context whose carrier holds the
 * notice's stored {@code traceparent}: Micrometer Tracing's propagating receiver handler makes the
 * attempt's span a child of the transaction that created the notice, however much later it runs.
 */
public final class AttemptContext extends ReceiverContext<Map<String, String>> {
  private final Delivery delivery;

  AttemptContext(Delivery delivery) {
    super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
    this.delivery = delivery;
    Map<String, String> carrier = new HashMap<>();
    if (delivery.notice().traceparent() != null) {
      carrier.put(Traceparent.HEADER, delivery.notice().traceparent());
    }
    setCarrier(carrier);
    setRemoteServiceName(delivery.definition().channel());
  }

  /** The attempt observed. */
  public Delivery delivery() {
    return delivery;
  }

  /** The traceparent the notice keeps (the remote parent); null if it has none. */
  public String parentTraceparent() {
    return delivery.notice().traceparent();
  }
}
