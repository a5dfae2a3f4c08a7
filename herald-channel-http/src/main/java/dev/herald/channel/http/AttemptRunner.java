package dev.herald.channel.http;

import dev.herald.DeliveryResult;
import dev.herald.health.PeerHealth;
import dev.herald.spi.Delivery;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs one admitted attempt's exchange; when its outcome is in, records it for the endpoint (circuit,
 * slot, health, disabling) and completes the delivery's future on a virtual thread of its own.
 */
final class AttemptRunner implements AutoCloseable {
  private final WebhookExchange exchange;
  private final PeerHealth health;
  private final EndpointListener listener;
  private final Clock clock;
  /**
   * Completes attempts' futures: the engine's and its listeners' code that follows an attempt must not
   * run on (and may not block) the HTTP client's few I/O threads. A virtual thread each, started when
   * the answer is in: none waits for a response.
   */
  private final ExecutorService completions =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-http-", 0).factory());

  AttemptRunner(WebhookExchange exchange, PeerHealth health, EndpointListener listener, Clock clock) {
    this.exchange = exchange;
    this.health = health;
    this.listener = listener;
    this.clock = clock;
  }

  CompletableFuture<DeliveryResult> run(
      Delivery d, Target t, String failover, HttpOptions o, EndpointState endpoint, boolean probe) {
    CompletableFuture<AttemptOutcome> running;
    try {
      running = exchange.run(d, t, failover, o, endpoint);
    } catch (RuntimeException e) {
      running = CompletableFuture.completedFuture(
          AttemptOutcome.neutral(DeliveryResult.retry("HTTP channel error: " + e)));
    }
    CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
    running.whenComplete((outcome, error) -> {
      AttemptOutcome done = outcome != null ? outcome
          : AttemptOutcome.neutral(DeliveryResult.retry("HTTP channel error: " + error));
      long now = clock.millis();
      boolean disabled = false;
      try {
        disabled = endpoint.record(done.verdict(), probe, now, done.pause(), done.failure());
      } finally {
        endpoint.release();
      }
      String origin = t.endpoint().toString();
      if (done.verdict() == EndpointState.Verdict.RESPONDED) {
        health.succeeded(origin);
      } else if (done.verdict() == EndpointState.Verdict.FAILED) {
        health.failed(origin, done.failure());
      }
      if (disabled) {
        notifyDisabled(endpoint.status(now));
      }
      try {
        completions.execute(() -> result.complete(done.result()));
      } catch (RejectedExecutionException closing) {
        result.complete(done.result());
      }
    });
    return result;
  }

  private void notifyDisabled(EndpointStatus status) {
    try {
      listener.onDisabled(status);
    } catch (RuntimeException e) {
      System.getLogger(HttpChannel.class.getName()).log(System.Logger.Level.WARNING,
          "endpoint listener failed on " + status.endpoint(), e);
    }
  }

  /** Stops completing on threads of its own; attempts still finishing complete on the caller's. */
  @Override
  public void close() {
    completions.shutdown();
  }
}
