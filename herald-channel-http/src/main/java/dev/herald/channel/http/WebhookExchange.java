package dev.herald.channel.http;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.schedule.DurationText;
import dev.herald.spi.Delivery;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One attempt's exchange with a receiver, as a chain of callbacks (no thread waits for it): the
 * signed request (Standard Webhooks headers), the call through {@link HttpTransport} (whose resolver
 * is the SSRF guard), and a request that met a stale kept-alive connection sent again at once.
 */
final class WebhookExchange {
  /**
   * Sends again after a stale connection at most this often within one attempt: each failure takes a
   * dead connection out of the client's pool, so a fresh one comes soon.
   */
  static final int MAX_STALE_RESENDS = 3;
  /** Headers the channel sets itself: extra headers never replace them. */
  private static final java.util.Set<String> OWN_HEADERS =
      java.util.Set.of("content-type", "user-agent", "herald-attempt", "traceparent", "content-length", "host");

  private final HttpTransport transport;
  private final TargetPolicy policy;
  private final Clock clock;
  private final String userAgent;
  private final Duration connectTimeout;
  private final ResponseJudge judge;
  private final long keepAliveNanos = TimeUnit.SECONDS.toNanos(HttpTransport.KEEP_ALIVE_SECONDS + 1);

  private final java.util.function.Function<Delivery, java.util.Map<String, String>> extraHeaders;

  WebhookExchange(HttpTransport transport, TargetPolicy policy, Clock clock, String userAgent, Duration connectTimeout,
      java.util.function.Function<Delivery, java.util.Map<String, String>> extraHeaders) {
    this.extraHeaders = extraHeaders;
    this.transport = transport;
    this.policy = policy;
    this.clock = clock;
    this.userAgent = userAgent;
    this.connectTimeout = connectTimeout;
    this.judge = new ResponseJudge(clock);
  }

  /**
   * Completes with the attempt's outcome; never exceptionally.
   *
   * @param failover why a fail-over target takes this attempt, for the attempt log; null for the first target
   */
  CompletableFuture<AttemptOutcome> run(Delivery d, Target t, String failover, HttpOptions o, EndpointState endpoint) {
    long t0 = System.nanoTime();
    if (t.literal() != null) {
      // an IP literal is connected to as written: checked here (names are checked where they resolve)
      TargetPolicy.Refusal refusal = policy.check(t.host(), new InetAddress[] {t.literal()});
      if (refusal != null) {
        return CompletableFuture.completedFuture(refused(refusal));
      }
    }
    StringBuilder log = new StringBuilder(512);
    if (failover != null) {
      log.append(failover).append('\n');
    }
    byte[] body = d.notice().payload().getBytes(StandardCharsets.UTF_8);
    List<String> headers = headers(d, t, o, body, log);
    CompletableFuture<AttemptOutcome> outcome = new CompletableFuture<>();
    send(d, t, o, endpoint, headers, body, log, t0, 0, outcome);
    return outcome;
  }

  private void send(Delivery d, Target t, HttpOptions o, EndpointState endpoint, List<String> headers, byte[] body,
      StringBuilder log, long t0, int resends, CompletableFuture<AttemptOutcome> outcome) {
    long sentAt = System.nanoTime();
    Duration left = o.timeout().minusNanos(sentAt - t0);
    if (left.isNegative() || left.isZero()) {
      outcome.complete(timedOut(t, o, log, t0));
      return;
    }
    CompletableFuture<HttpTransport.Answer> call;
    try {
      call = transport.post(t, headers, body, left, ResponseJudge.BODY_LIMIT);
    } catch (RuntimeException e) { // the client is shut down
      outcome.complete(AttemptOutcome.neutral(DeliveryResult.retry("HTTP channel error: " + e + "\n" + log)));
      return;
    }
    call.whenComplete((answer, error) -> {
      try {
        if (error == null) {
          endpoint.answered(System.nanoTime());
          outcome.complete(judge.judge(answer, t, o, log, t0));
          return;
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        TargetPolicy.Refusal refusal = GuardedResolver.Refused.in(cause);
        if (refusal != null) {
          outcome.complete(refused(refusal));
        } else if (cause instanceof TimeoutException) {
          outcome.complete(timedOut(t, o, log, t0));
        } else if (cause instanceof UnknownHostException) {
          String why = "cannot resolve host '" + t.host() + "'";
          outcome.complete(new AttemptOutcome(DeliveryResult.retry(why + "\n(no request sent)"),
              EndpointState.Verdict.FAILED, null, why));
        } else if (resends < MAX_STALE_RESENDS && TransportErrors.noResponseByte(cause)
            && endpoint.answeredSince(sentAt - keepAliveNanos)) {
          log.append("< (connection closed before any byte of a response: ").append(TransportErrors.message(cause))
              .append("; a kept-alive connection the receiver had closed, so the request never reached it;"
                  + " sent again at once, not counted as an attempt)\n");
          send(d, t, o, endpoint, headers, body, log, t0, resends + 1, outcome);
        } else {
          outcome.complete(transportFailure(TransportErrors.describe(cause, t, connectTimeout, o.timeout()), log, t0));
        }
      } catch (RuntimeException e) {
        outcome.complete(AttemptOutcome.neutral(DeliveryResult.retry("HTTP channel error: " + e + "\n" + log)));
      }
    });
  }

  private static AttemptOutcome refused(TargetPolicy.Refusal refusal) {
    return AttemptOutcome.neutral(DeliveryResult.fail(refusal.message() + "\n(no request sent)"));
  }

  private static AttemptOutcome timedOut(Target t, HttpOptions o, StringBuilder log, long t0) {
    return transportFailure("timed out: no complete response from " + t.endpoint() + " within "
        + DurationText.format(o.timeout()) + " (option timeout)", log, t0);
  }

  /** The signed request's headers (name, value pairs), written to {@code log} as they are set (the signature masked). */
  private List<String> headers(Delivery d, Target t, HttpOptions o, byte[] body, StringBuilder log) {
    String id = d.notice().id().toString();
    long timestamp = clock.instant().getEpochSecond();
    List<String> h = new ArrayList<>(14);
    log.append("> POST ").append(t.uri()).append('\n');
    log.append("> content-type: application/json\n"); // the body's, set by the transport
    header(h, log, "user-agent", userAgent);
    header(h, log, "webhook-id", id);
    header(h, log, "webhook-timestamp", Long.toString(timestamp));
    if (o.signer().signs()) {
      String signature = o.signer().sign(id, timestamp, body);
      h.add("webhook-signature");
      h.add(signature);
      log.append("> webhook-signature: ").append(Signer.mask(signature)).append('\n');
    }
    header(h, log, "herald-attempt", Integer.toString(d.attempt()));
    if (d.traceparent() != null) {
      header(h, log, "traceparent", d.traceparent()); // the receiver's span continues the notice's trace
    }
    for (java.util.Map.Entry<String, String> e : extraHeaders.apply(d).entrySet()) {
      String name = e.getKey().toLowerCase(java.util.Locale.ROOT);
      if (!OWN_HEADERS.contains(name) && !name.startsWith("webhook-")) {
        h.add(name);
        h.add(e.getValue());
        log.append("> ").append(name).append(": (not logged)\n");
      }
    }
    log.append("> (body: ").append(body.length).append(" bytes)\n");
    return h;
  }

  private static void header(List<String> h, StringBuilder log, String name, String value) {
    h.add(name);
    h.add(value);
    log.append("> ").append(name).append(": ").append(value).append('\n');
  }

  private static AttemptOutcome transportFailure(String why, StringBuilder log, long t0) {
    log.append("< (no response)\n");
    String detail = why + "\n" + log + ResponseJudge.took(t0);
    return new AttemptOutcome(DeliveryResult.retry(Attempt.bound(detail)), EndpointState.Verdict.FAILED, null, why);
  }
}
