package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeStatus;
import dev.herald.tracing.AttemptContext;
import dev.herald.tracing.AttemptObservations;
import dev.herald.tracing.HeraldTracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** With a Tracer and an ObservationRegistry the starter traces notices by itself; without, it leaves them be. */
class HeraldTracingAutoConfigurationTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
            HeraldAutoConfiguration.class, HeraldTracingAutoConfiguration.class))
        .withBean(Inbox.class)
        .withPropertyValues("spring.datasource.url=jdbc:h2:file:" + dir.resolve("db") + ";DB_CLOSE_ON_EXIT=FALSE",
            "herald.shutdown-timeout=1s", "herald.definitions.orders.handler=inbox");
  }

  @Test
  void aNoticeEnqueuedInASpanKeepsItsTraceAndItsAttemptIsObservedUnderIt() {
    SimpleTracer tracer = new SimpleTracer();
    List<AttemptContext> observed = new CopyOnWriteArrayList<>();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<AttemptContext>() {
      @Override
      public void onStop(AttemptContext context) {
        observed.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof AttemptContext;
      }
    });
    runner().withBean(Tracer.class, () -> tracer).withBean(ObservationRegistry.class, () -> registry).run(ctx -> {
      assertThat(ctx).hasSingleBean(AttemptObservations.class);
      Herald herald = ctx.getBean(Herald.class);
      Span request = tracer.nextSpan().name("POST /orders/42/pay").start();
      Notice n;
      try (Tracer.SpanInScope ignored = tracer.withSpan(request)) {
        n = herald.enqueue("orders", "{\"id\":42}");
      } finally {
        request.end();
      }
      String expected = HeraldTracing.of(request.context());
      assertThat(n.traceparent()).isNotNull().isEqualTo(expected);
      await().atMost(Duration.ofSeconds(10)).until(() -> observed.size() == 1);
      assertThat(observed.getFirst().parentTraceparent()).isEqualTo(expected);
      assertThat(observed.getFirst().getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("delivered");
      assertThat(herald.operations().find(n.id()).orElseThrow().notice())
          .extracting(Notice::status, Notice::traceparent).containsExactly(NoticeStatus.SUCCEEDED, expected);
    });
  }

  @Test
  void withoutTracerOrRegistryNoticesHaveNoTraceAndNothingIsObserved() {
    runner().run(ctx -> {
      assertThat(ctx).doesNotHaveBean(AttemptObservations.class);
      assertThat(ctx.getBean(Herald.class).enqueue("orders", "{}").traceparent()).isNull();
    });
  }
}
