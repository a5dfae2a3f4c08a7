package dev.herald.channel.local;

import dev.herald.DeliveryResult;
import dev.herald.NoticeContext;
import dev.herald.NoticeHandler;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Runs handlers registered by name, each attempt on its own virtual thread, so a handler may block
 * on I/O freely. The engine bounds how many run at once. A handler's exception is a retry, unless the
 * definition's exception strategy says it fails for good ({@code fail-on}, {@code retry-on}: see
 * {@link ExceptionStrategy}).
 */
public final class LocalChannel implements Channel {
  public static final String NAME = "local";

  private final Map<String, NoticeHandler> handlers;
  private final ExecutorService executor =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-handler-", 0).factory());

  public LocalChannel(Map<String, NoticeHandler> handlers) {
    this.handlers = Map.copyOf(handlers);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery d) {
    NoticeHandler handler = handlers.get(d.target());
    if (handler == null) {
      return CompletableFuture.completedFuture(
          DeliveryResult.retry("no handler named '" + d.target() + "' is registered on this node"));
    }
    return CompletableFuture.supplyAsync(() -> run(handler, d), executor);
  }

  private static DeliveryResult run(NoticeHandler handler, Delivery d) {
    NoticeContext ctx = new NoticeContext(d.notice(), d.definition(), d.attempt(), d.traceparent());
    DeliveryResult result;
    try {
      result = handler.handle(ctx);
      if (result == null) {
        result = DeliveryResult.retry("handler returned null");
      }
    } catch (Exception e) {
      result = strategy(d.definition()).failsForGood(e)
          ? DeliveryResult.fail("fails for good (options.fail-on): " + describe(e))
          : DeliveryResult.retry(describe(e));
    }
    return ctx.newDescription() == null ? result : result.withDescription(ctx.newDescription());
  }

  /** A definition's exception strategy; a bad one (saved by an older version) retries, as none. */
  private static ExceptionStrategy strategy(dev.herald.NoticeDefinition d) {
    try {
      return ExceptionStrategy.of(d);
    } catch (dev.herald.InvalidInputException e) {
      return ExceptionStrategy.NONE;
    }
  }

  /** Options {@code fail-on} and {@code retry-on}: the definition's exception strategy. */
  @Override
  public java.util.List<dev.herald.spi.DefinitionOption> options() {
    return ExceptionStrategy.OPTIONS;
  }

  /** Refuses a definition whose {@code fail-on} or {@code retry-on} option is not a list of class names. */
  @Override
  public void validate(dev.herald.NoticeDefinition definition) {
    Channel.super.validate(definition);
    ExceptionStrategy.of(definition);
  }

  /** Longest stack trace kept in an attempt's detail; the rest is cut with a marker. */
  static final int MAX_TRACE = 3000;

  /**
   * A handler's exception for the attempt log: its class and message, then its stack trace (causes
   * included), bounded to {@value #MAX_TRACE} characters.
   */
  static String describe(Throwable e) {
    java.io.StringWriter trace = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(trace));
    return dev.herald.Attempt.bound(trace.toString().stripTrailing().replace("\r\n", "\n"), MAX_TRACE);
  }

  @Override
  public void close() {
    executor.shutdown();
  }
}
