package dev.herald.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.Traceparent;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each attempt is an observation under the notice's trace, on a real engine over H2. */
class AttemptObservationsTest {
  static final String TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @TempDir Path dir;
  private Herald herald;
  private final RecordingChannel channel = new RecordingChannel(2);

  @AfterEach
  void close() {
    if (herald != null) {
      herald.close();
    }
  }

  private Herald start(Herald.Builder b) {
    herald = b.h2File(dir.resolve("herald"))
        .shutdownTimeout(Duration.ofSeconds(2))
        .channel(channel)
        .define(NoticeDefinition.builder("order-paid").channel("rec", "merchant").retry("10ms").build())
        .build()
        .start();
    return herald;
  }

  private Notice awaitSucceeded(Notice n) {
    await().atMost(Duration.ofSeconds(10)).until(() ->
        herald.operations().find(n.id()).orElseThrow().notice().status() == NoticeStatus.SUCCEEDED);
    return herald.operations().find(n.id()).orElseThrow().notice();
  }

  @Test
  void everyAttemptIsAnObservationWithTheNoticesTraceparentAsItsRemoteParent() {
    TestObservationRegistry registry = TestObservationRegistry.create(); // also checks each is started and stopped once
    List<AttemptContext> contexts = new java.util.concurrent.CopyOnWriteArrayList<>();
    registry.observationConfig().observationHandler(new ObservationHandler<AttemptContext>() {
      @Override
      public void onStop(AttemptContext context) {
        contexts.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof AttemptContext;
      }
    });
    start(Herald.builder().attemptObserver(new AttemptObservations(registry)));

    Notice n = herald.enqueue(NoticeRequest.of("order-paid", "{\"order\":42}").traceparent(TP));
    assertThat(awaitSucceeded(n).traceparent()).isEqualTo(TP);

    await().atMost(Duration.ofSeconds(5)).until(() -> contexts.size() == 3);
    TestObservationRegistryAssert.assertThat(registry).hasNumberOfObservationsWithNameEqualTo("herald.attempt", 3);
    for (int i = 0; i < 3; i++) {
      AttemptContext c = contexts.get(i);
      assertThat(c.getName()).isEqualTo("herald.attempt");
      assertThat(c.getCarrier()).containsEntry("traceparent", TP);
      assertThat(c.getLowCardinalityKeyValue("definition").getValue()).isEqualTo("order-paid");
      assertThat(c.getLowCardinalityKeyValue("channel").getValue()).isEqualTo("rec");
      assertThat(c.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo(i < 2 ? "retry" : "delivered");
      assertThat(c.getHighCardinalityKeyValue("notice.id").getValue()).isEqualTo(n.id().toString());
      assertThat(c.getHighCardinalityKeyValue("attempt").getValue()).isEqualTo(Integer.toString(i + 1));
    }
    // Without a tracer the receiver gets the stored traceparent, unchanged, on every attempt.
    assertThat(channel.sent).containsExactly(TP, TP, TP);
  }

  @Test
  void withATracerEachAttemptIsASpanInTheNoticesTraceAndTheChannelSendsThatSpan() {
    SimpleTracer tracer = new SimpleTracer();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(
        new PropagatingReceiverTracingObservationHandler<>(tracer, new W3cPropagator(tracer)));
    start(Herald.builder().attemptObserver(new AttemptObservations(registry)));

    Notice n = herald.enqueue(NoticeRequest.of("order-paid", "{}").traceparent(TP));
    awaitSucceeded(n);

    await().atMost(Duration.ofSeconds(5)).until(() -> tracer.getSpans().size() == 3);
    List<SimpleSpan> spans = List.copyOf(tracer.getSpans());
    assertThat(channel.sent).hasSize(3);
    for (int i = 0; i < 3; i++) {
      SimpleSpan span = spans.get(i);
      assertThat(span.getTraceId()).isEqualTo(Traceparent.traceId(TP));
      assertThat(span.getParentId()).as("child of the enqueuing span").isEqualTo("00f067aa0ba902b7");
      assertThat(span.getName()).isEqualTo("herald attempt order-paid");
      assertThat(channel.sent.get(i)).isEqualTo("00-" + Traceparent.traceId(TP) + "-" + span.getSpanId() + "-01");
    }
    assertThat(spans).extracting(SimpleSpan::getSpanId).doesNotHaveDuplicates();
  }

  @Test
  void aNoticeEnqueuedInsideASpanKeepsThatSpansTraceWithoutTheCallerPassingIt() {
    SimpleTracer tracer = new SimpleTracer();
    start(Herald.builder().traceContext(HeraldTracing.currentTraceparent(tracer)));

    Span request = tracer.nextSpan().name("POST /orders/42/pay").start();
    Notice n;
    try (Tracer.SpanInScope ignored = tracer.withSpan(request)) {
      n = herald.enqueue("order-paid", "{}");
    } finally {
      request.end();
    }
    Notice outside = herald.enqueue("order-paid", "{}");

    String expected = HeraldTracing.of(request.context());
    assertThat(expected).isNotNull();
    assertThat(n.traceparent()).isEqualTo(expected);
    assertThat(awaitSucceeded(n).traceparent()).isEqualTo(expected);
    assertThat(outside.traceparent()).isNull();
    awaitSucceeded(outside);
    assertThat(channel.sent).contains(expected);
  }

  @Test
  void aRequestsOwnTraceparentWinsOverTheCurrentOne() {
    start(Herald.builder().traceContext(() -> "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    assertThat(herald.enqueue(NoticeRequest.of("order-paid", "{}").traceparent(TP)).traceparent()).isEqualTo(TP);
    assertThat(herald.enqueue("order-paid", "{}").traceparent())
        .isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  }

  @Test
  void aLocalHandlerSeesItsAttemptsTraceparent() {
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    start(Herald.builder()
        .define(NoticeDefinition.builder("local").handler("h").build())
        .handler("h", ctx -> {
          seen.add(ctx.traceparent());
          return DeliveryResult.delivered();
        }));
    awaitSucceeded(herald.enqueue(NoticeRequest.of("local", "{}").traceparent(TP)));
    assertThat(seen).containsExactly(TP);
  }

  @Test
  void aBrokenSourceOrObserverNeverStopsAnEnqueueOrADelivery() {
    start(Herald.builder()
        .traceContext(() -> {
          throw new IllegalStateException("no tracer today");
        })
        .attemptObserver(d -> {
          throw new IllegalStateException("observer down");
        }));
    Notice n = herald.enqueue("order-paid", "{}");
    assertThat(n.traceparent()).isNull();
    awaitSucceeded(n);
  }

  /** A channel that records the traceparent each attempt sends; the first {@code failures} attempts fail. */
  static final class RecordingChannel implements Channel {
    final List<String> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Queue<Boolean> failures = new ConcurrentLinkedQueue<>();

    RecordingChannel(int failures) {
      for (int i = 0; i < failures; i++) {
        this.failures.add(true);
      }
    }

    @Override
    public String name() {
      return "rec";
    }

    @Override
    public CompletionStage<DeliveryResult> deliver(Delivery delivery) {
      sent.add(delivery.traceparent() == null ? "none" : delivery.traceparent());
      return CompletableFuture.completedFuture(
          failures.poll() != null ? DeliveryResult.retry("503") : DeliveryResult.delivered());
    }
  }
}
