package dev.herald.channel.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.AlertPolicy;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeStatus;
import dev.herald.PendingAlert;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A definition's exception strategy: the handler exceptions it names fail a notice for good at the
 * first attempt (DEAD, alerted), a cause counts, {@code retry-on} wins for subtypes, others are retried.
 */
class ExceptionStrategyTest {
  @TempDir Path dir;

  @Test
  void namedExceptionsFailForGoodAndTheOthersAreRetried() {
    try (Herald herald = Herald.builder().h2File(dir.resolve("h"))
        .define(NoticeDefinition.builder("import").handler("import").maxAttempts(5).retry("1h")
            .alert(AlertPolicy.finalFailure())
            .failOn(IllegalArgumentException.class).retryOn(NumberFormatException.class).build())
        .handler("import", ctx -> {
          switch (ctx.payload()) {
            case "\"bad\"" -> throw new IllegalArgumentException("no such customer");
            case "\"wrapped\"" -> throw new RuntimeException("import failed", new IllegalArgumentException("bad row"));
            case "\"number\"" -> throw new NumberFormatException("For input string: \"x\"");
            default -> throw new IllegalStateException("database busy");
          }
        })
        .build()) {
      Notice bad = herald.enqueue("import", "\"bad\"");
      Notice wrapped = herald.enqueue("import", "\"wrapped\"");
      Notice number = herald.enqueue("import", "\"number\"");
      Notice busy = herald.enqueue("import", "\"busy\"");
      herald.runDue();

      for (Notice n : List.of(bad, wrapped)) {
        NoticeDetail d = herald.operations().find(n.id()).orElseThrow();
        assertThat(d.notice().status()).as(n.payload()).isEqualTo(NoticeStatus.DEAD);
        assertThat(d.attempts()).singleElement().satisfies(a -> {
          assertThat(a.outcome()).isEqualTo(DeliveryResult.Outcome.FAIL);
          assertThat(a.detail()).contains("fails for good (options.fail-on)").contains("IllegalArgumentException");
        });
      }
      for (Notice n : List.of(number, busy)) {
        assertThat(herald.operations().find(n.id()).orElseThrow().notice().status()).as(n.payload())
            .isEqualTo(NoticeStatus.FAILED);
      }
      List<PendingAlert> alerts = new ArrayList<>();
      herald.alerts().drain(10, (waiting, tx) -> {
        alerts.addAll(waiting);
        return waiting;
      });
      assertThat(alerts).extracting(PendingAlert::noticeId).containsExactlyInAnyOrder(bad.id(), wrapped.id());

      assertThatThrownBy(() -> herald.definitions().save(NoticeDefinition.builder("x").handler("import")
          .option("fail-on", "java.lang.IllegalArgumentException, not a class!").build()))
          .isInstanceOfSatisfying(InvalidInputException.class,
              e -> assertThat(e.field()).isEqualTo("options.fail-on"));
    }
  }
}
