package dev.herald.spring;

import dev.herald.NoticeContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A handler bean for tests: records what it received; can be told to fail. */
public class Inbox {
  public final List<String> received = new CopyOnWriteArrayList<>();
  public final AtomicInteger calls = new AtomicInteger();
  /** Attempts per payload. */
  public final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
  /** Payloads containing this text fail their first attempt. */
  public volatile String failFirstIfContains = "\u0000";
  /** While true every attempt fails. */
  public volatile boolean down;
  private final List<String> failedOnce = new CopyOnWriteArrayList<>();

  @NoticeHandlerMethod("inbox")
  public void take(NoticeContext ctx) {
    calls.incrementAndGet();
    String payload = ctx.payload();
    attempts.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
    if (down) {
      throw new IllegalStateException("receiver down");
    }
    if (payload.contains(failFirstIfContains) && !failedOnce.contains(payload)) {
      failedOnce.add(payload);
      throw new IllegalStateException("first attempt fails");
    }
    received.add(payload);
  }

  public int attemptsOf(String payload) {
    AtomicInteger n = attempts.get(payload);
    return n == null ? 0 : n.get();
  }

  public long count(String payloadPart) {
    return received.stream().filter(p -> p.contains(payloadPart)).count();
  }
}
