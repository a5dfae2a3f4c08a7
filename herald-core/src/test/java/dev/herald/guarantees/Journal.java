package dev.herald.guarantees;

import dev.herald.IllegalTransitionException;
import dev.herald.NoticeStatus;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything that happened in a run, each stamped from one monotonic source: {@link System#nanoTime()}
 * less the scenario's start, in nanoseconds.
 */
final class Journal {
  /**
   * One handler call, as the receiver saw it. {@code end} is the kill instant if the node was killed
   * while it ran ({@code cut}).
   */
  record Delivery(UUID id, int n, int version, String node, int attempt, long start, long end, String result,
      boolean cut) {}

  /** Who made an operations call: an operator, or the receiver confirming from inside its handler or after it. */
  enum Origin { OPERATOR, RECEIVER_DURING, RECEIVER_AFTER }

  /**
   * One operations call. {@code status} is the returned notice's status if it returned normally
   * (acknowledged); otherwise {@code error} names the exception and {@code refused} says whether it was
   * a refusal that changed nothing: an {@link IllegalTransitionException} ({@code from} is the status
   * it saw) or a {@link dev.herald.NoticeNotFoundException}.
   * {@code version} is the payload version an edit writes; {@code attempt} the attempt a receiver confirms.
   */
  record Call(Scenario.Op op, Origin origin, int n, UUID id, String node, int version, int attempt, long start, long end,
      NoticeStatus status, String error, boolean refused, NoticeStatus from) {
    boolean acked() {
      return status != null;
    }

    /** Acknowledged, or failed in a way that may still have changed the notice (a lost connection, say). */
    boolean mayHaveApplied() {
      return status != null || !refused;
    }
  }

  /** A node killed or started again, or the end of the run: quiescent, final states read. */
  record Event(String what, String node, long at) {}

  private volatile long t0 = System.nanoTime();
  final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
  /** Notice number → id, for every notice whose enqueue was acknowledged. */
  final Map<Integer, UUID> ids = new ConcurrentHashMap<>();
  /** Notice number → when its enqueue was acknowledged. */
  final Map<Integer, Long> enqueuedAt = new ConcurrentHashMap<>();
  /** The latest an action started after its planned time (a loaded machine). */
  final AtomicLong maxLag = new AtomicLong();
  /** The longest an acknowledged enqueue took, from its planned time (the harness's callers, a loaded machine). */
  final AtomicLong slowestEnqueue = new AtomicLong();
  /** Enqueues that failed (and were repeated) and planned calls not made, by reason. */
  final Map<String, Integer> troubles = new ConcurrentHashMap<>();

  /** Makes now the origin of the journal's times: the scenario's start. */
  void markStart() {
    t0 = System.nanoTime();
  }

  long now() {
    return System.nanoTime() - t0;
  }

  /** Nanoseconds since the start as milliseconds, for reports. */
  static String ms(long nanos) {
    return String.format("%.1fms", nanos / 1e6);
  }

  void enqueued(int n, UUID id) {
    ids.putIfAbsent(n, id);
    enqueuedAt.putIfAbsent(n, now());
  }

  void trouble(String what) {
    troubles.merge(what, 1, Integer::sum);
  }

  void delivery(Delivery d) {
    deliveries.add(d);
  }

  void call(Call c) {
    calls.add(c);
  }

  void event(String what, String node, long at) {
    events.add(new Event(what, node, at));
  }
}
