package dev.herald.guarantees;

import dev.herald.DeliveryResult;
import dev.herald.NoticeContext;
import dev.herald.NoticeHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the receiver saw: every call of a handler, per notice, with the node, the payload and when
 * the call started and ended (monotonic nanos). The guarantees are about what a receiver sees, so
 * the tests count here rather than in Herald's own attempt log.
 */
final class Deliveries {
  /** One handler call. {@code endNanos} is 0 while it runs. */
  static final class Call {
    final UUID notice;
    final String node;
    final String payload;
    final int attempt;
    final long startNanos;
    volatile long endNanos;

    Call(UUID notice, String node, String payload, int attempt, long startNanos) {
      this.notice = notice;
      this.node = node;
      this.payload = payload;
      this.attempt = attempt;
      this.startNanos = startNanos;
    }

    boolean overlaps(Call other) {
      long thisEnd = endNanos == 0 ? Long.MAX_VALUE : endNanos;
      long otherEnd = other.endNanos == 0 ? Long.MAX_VALUE : other.endNanos;
      return startNanos < otherEnd && other.startNanos < thisEnd;
    }

    @Override
    public String toString() {
      return "call(node=" + node + ", payload=" + payload + ", attempt=" + attempt + ", start=" + startNanos / 1_000_000
          + "ms, end=" + (endNanos == 0 ? "running" : endNanos / 1_000_000 + "ms") + ")";
    }
  }

  /** What a recorded handler does once its call is on record. */
  @FunctionalInterface
  interface Body {
    DeliveryResult handle(NoticeContext ctx) throws Exception;
  }

  private final Map<UUID, List<Call>> byNotice = new ConcurrentHashMap<>();
  private final List<Call> all = new CopyOnWriteArrayList<>();

  /** A handler for {@code node} that records each call, then runs {@code body}. */
  NoticeHandler handler(String node, Body body) {
    return ctx -> {
      Call call = new Call(ctx.notice().id(), node, ctx.payload(), ctx.attempt(), System.nanoTime());
      byNotice.computeIfAbsent(call.notice, id -> new CopyOnWriteArrayList<>()).add(call);
      all.add(call);
      try {
        return body.handle(ctx);
      } finally {
        call.endNanos = System.nanoTime();
      }
    };
  }

  /** A handler that records each call and answers delivered. */
  NoticeHandler delivering(String node) {
    return handler(node, ctx -> DeliveryResult.delivered());
  }

  List<Call> of(UUID notice) {
    return List.copyOf(byNotice.getOrDefault(notice, List.of()));
  }

  List<String> payloadsOf(UUID notice) {
    return of(notice).stream().map(c -> c.payload).toList();
  }

  int count(UUID notice) {
    return of(notice).size();
  }

  List<Call> all() {
    return List.copyOf(all);
  }

  /** Pairs of calls of one notice that ran at the same time, described for a failure message. */
  List<String> overlapping() {
    List<String> found = new ArrayList<>();
    for (Map.Entry<UUID, List<Call>> e : byNotice.entrySet()) {
      List<Call> calls = List.copyOf(e.getValue());
      for (int i = 0; i < calls.size(); i++) {
        for (int j = i + 1; j < calls.size(); j++) {
          if (calls.get(i).overlaps(calls.get(j))) {
            found.add("notice " + e.getKey() + ": " + calls.get(i) + " and " + calls.get(j));
          }
        }
      }
    }
    return found;
  }
}
