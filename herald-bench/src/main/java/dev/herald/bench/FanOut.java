package dev.herald.bench;

import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.NoticeRequest;
import dev.herald.events.EventEndpoint;
import dev.herald.events.EventRequest;
import dev.herald.events.EventType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Case fan-out: publishing one event to {@code --fanout-endpoints} (100) endpoints, one event per
 * caller transaction ({@code inTransaction(tx -> tx.publish(...))}), as notices written per second,
 * beside the same rows written by plain {@code enqueueAll} in one transaction each: the same number of
 * notices, one per endpoint's definition, with the same payload. The difference is what an event
 * costs over its notices: reading the type and its subscribers, the schema check, the event row and
 * one delivery row per endpoint. Due in an hour, so that the run measures intake alone.
 */
final class FanOut {
  static final String CASE = "fan-out";
  private static final String TYPE = "bench.event";

  private FanOut() {}

  static void run(Bench.Ctx ctx, BenchDb db) {
    Options o = ctx.o();
    for (int r = 0; r < o.repeat; r++) {
      for (String variant : List.of("event", "enqueue-all")) {
        Result result;
        try (BenchDb.Space space = db.open(CASE + "-" + variant)) {
          result = variant(ctx, db, space, variant);
        }
        ctx.add(result, db);
      }
    }
  }

  private static Result variant(Bench.Ctx ctx, BenchDb db, BenchDb.Space space, String variant) {
    Options o = ctx.o();
    int endpoints = o.fanoutEndpoints;
    Result.Builder rb = Result.of(CASE, "herald", variant, db.kind())
        .settings(Systems.heraldSettings(o))
        .setting("endpoints", endpoints).setting("producers", o.intakeProducers)
        .setting("duration_s", o.intakeSeconds).setting("due", "in 1 h (not delivered during the run)");
    Systems.HeraldCounter counter = new Systems.HeraldCounter();
    try (Herald herald = Systems.herald(o, db, space.dataSource(), c -> DeliveryResult.delivered(), counter)) {
      herald.start();
      herald.events().saveType(EventType.of(TYPE, "benchmark event", "{\"type\": \"object\", \"required\": [\"seq\"]}"));
      List<String> definitions = new ArrayList<>(endpoints);
      for (int i = 0; i < endpoints; i++) {
        EventEndpoint e = herald.events().saveEndpoint(EventEndpoint.builder("partner-" + i)
            .channel("local", Systems.HANDLER).subscribe(TYPE).build());
        definitions.add(e.delivery().name());
      }
      Intake.Worker work = variant.equals("event")
          ? seq -> herald.inTransaction(tx -> tx.publish(EventRequest.of(TYPE, "{\"seq\":" + seq + "}")
              .fireAt(Instant.now().plusSeconds(3600))))
          : seq -> {
            String payload = "{\"seq\":" + seq + "}";
            Instant at = Instant.now().plusSeconds(3600);
            List<NoticeRequest> rows = new ArrayList<>(endpoints);
            for (String d : definitions) {
              rows.add(NoticeRequest.of(d, payload).fireAt(at));
            }
            herald.inTransaction(tx -> tx.enqueueAll(rows));
          };
      System.out.printf("  %s %s on %s: 1 event -> %d endpoints, %d callers for %s s%n", CASE, variant, db.kind(),
          endpoints, o.intakeProducers, o.intakeSeconds);
      Intake.Loop loop;
      Map<String, Long> before = db.counters();
      try (Jfr jfr = Jfr.start(o, CASE + "-" + variant + "-" + db.kind());
          WallProfiler wall = WallProfiler.start(o, CASE + " " + variant)) {
        loop = Intake.closedLoop(CASE + " " + variant, o.intakeProducers, o.intakeSeconds, endpoints, work);
      }
      BenchDb.perDelivery(rb, before, db.counters(), loop.totalNotices());
      rb.metric("notices", loop.measuredNotices())
          .metric("seconds", loop.measuredSeconds())
          .metric("notices_per_s", loop.measuredNotices() / loop.measuredSeconds())
          .metric("events_per_s", loop.measuredNotices() / (double) endpoints / loop.measuredSeconds());
      loop.latency().into(rb.metricsView(), "call_");
      rb.metric("failures", loop.failures());
      if (loop.failures() > 0) {
        rb.failed(loop.failures() + " calls failed, first: " + loop.firstFailure());
      }
      return rb.build();
    }
  }
}
