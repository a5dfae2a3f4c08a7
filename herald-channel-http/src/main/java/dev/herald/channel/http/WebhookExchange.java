package dev.herald.channel.http;

import dev.herald.Attempt;
import dev.herald.DeliveryResult;
import dev.herald.schedule.DurationText;
import dev.herald.spi.Delivery;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One attempt's exchange with a receiver: the SSRF check on the addresses the host resolves to now,
 * the signed request (Standard Webhooks headers), the call, and a request that met a stale kept-alive
 * connection sent again at once. Blocks its (virtual) thread until the answer or the timeout.
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

  private final HttpClient client;
  private final TargetPolicy policy;
  private final Clock clock;
  private final String userAgent;
  private final Duration connectTimeout;
  private final ResponseJudge judge;
  private final long keepAliveNanos;
  private final java.util.function.Function<Delivery, java.util.Map<String, String>> extraHeaders;

  WebhookExchange(HttpClient client, TargetPolicy policy, Clock clock, String userAgent, Duration connectTimeout,
      java.util.function.Function<Delivery, java.util.Map<String, String>> extraHeaders) {
    this.extraHeaders = extraHeaders;
    this.client = client;
    this.policy = policy;
    this.clock = clock;
    this.userAgent = userAgent;
    this.connectTimeout = connectTimeout;
    this.judge = new ResponseJudge(clock);
    this.keepAliveNanos = TimeUnit.SECONDS.toNanos(clientKeepAliveSeconds() + 1);
  }

  /**
   * @param failover why a fail-over target takes this attempt, for the attempt log; null for the first target
   */
  AttemptOutcome run(Delivery d, Target t, String failover, HttpOptions o, EndpointState endpoint) {
    long t0 = System.nanoTime();
    InetAddress[] addresses;
    try {
      addresses = policy.resolver().resolve(t.host());
    } catch (UnknownHostException e) {
      String why = "cannot resolve host '" + t.host() + "'";
      return new AttemptOutcome(DeliveryResult.retry(why + "\n(no request sent)"), EndpointState.Verdict.FAILED, null,
          why);
    }
    TargetPolicy.Refusal refusal = policy.check(t.host(), addresses);
    if (refusal != null) {
      return AttemptOutcome.neutral(DeliveryResult.fail(refusal.message() + "\n(no request sent)"));
    }
    // The JDK client resolves the host again when it connects; within the JVM's DNS cache
    // (networkaddress.cache.ttl, 30 s by default) that is the answer checked above. See README.

    StringBuilder log = new StringBuilder(512);
    if (failover != null) {
      log.append(failover).append('\n');
    }
    HttpRequest request = request(d, t, o, log);
    long deadline = t0 + o.timeout().toNanos();
    for (int resends = 0; ; resends++) {
      long sentAt = System.nanoTime();
      CompletableFuture<HttpResponse<LimitedBody.Body>> call =
          client.sendAsync(request, info -> new LimitedBody(ResponseJudge.BODY_LIMIT));
      HttpResponse<LimitedBody.Body> response;
      try {
        response = call.get(Math.max(0, deadline - sentAt), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        call.cancel(true);
        return transportFailure("timed out: no complete response from " + t.endpoint() + " within "
            + DurationText.format(o.timeout()) + " (option timeout)", log, t0);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        if (resends < MAX_STALE_RESENDS && TransportErrors.noResponseByte(cause)
            && endpoint.answeredSince(sentAt - keepAliveNanos)) {
          log.append("< (connection closed before any byte of a response: ").append(cause.getMessage())
              .append("; a kept-alive connection the receiver had closed, so the request never reached it;"
                  + " sent again at once, not counted as an attempt)\n");
          continue;
        }
        return transportFailure(TransportErrors.describe(cause, t, connectTimeout, o.timeout()), log, t0);
      } catch (InterruptedException e) {
        call.cancel(true);
        Thread.currentThread().interrupt();
        return AttemptOutcome.neutral(DeliveryResult.retry("interrupted: the HTTP channel is closing\n" + log));
      }
      endpoint.answered(System.nanoTime());
      return judge.judge(response, t, o, log, t0);
    }
  }

  /** The signed POST, its headers written to {@code log} as they are set (the signature masked). */
  private HttpRequest request(Delivery d, Target t, HttpOptions o, StringBuilder log) {
    byte[] body = d.notice().payload().getBytes(StandardCharsets.UTF_8);
    String id = d.notice().id().toString();
    long timestamp = clock.instant().getEpochSecond();
    HttpRequest.Builder rb = HttpRequest.newBuilder(t.uri())
        .timeout(o.timeout())
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (!t.isHttps()) {
      rb.version(HttpClient.Version.HTTP_1_1); // no h2c upgrade dance on cleartext
    }
    log.append("> POST ").append(t.uri()).append('\n');
    header(rb, log, "content-type", "application/json");
    header(rb, log, "user-agent", userAgent);
    header(rb, log, "webhook-id", id);
    header(rb, log, "webhook-timestamp", Long.toString(timestamp));
    if (o.signer().signs()) {
      String signature = o.signer().sign(id, timestamp, body);
      rb.header("webhook-signature", signature);
      log.append("> webhook-signature: ").append(Signer.mask(signature)).append('\n');
    }
    header(rb, log, "herald-attempt", Integer.toString(d.attempt()));
    if (d.traceparent() != null) {
      header(rb, log, "traceparent", d.traceparent()); // the receiver's span continues the notice's trace
    }
    for (java.util.Map.Entry<String, String> h : extraHeaders.apply(d).entrySet()) {
      String name = h.getKey().toLowerCase(java.util.Locale.ROOT);
      if (!OWN_HEADERS.contains(name) && !name.startsWith("webhook-")) {
        rb.header(h.getKey(), h.getValue());
        log.append("> ").append(name).append(": (not logged)\n");
      }
    }
    log.append("> (body: ").append(body.length).append(" bytes)\n");
    return rb.build();
  }

  private static void header(HttpRequest.Builder rb, StringBuilder log, String name, String value) {
    rb.header(name, value);
    log.append("> ").append(name).append(": ").append(value).append('\n');
  }

  private static AttemptOutcome transportFailure(String why, StringBuilder log, long t0) {
    log.append("< (no response)\n");
    String detail = why + "\n" + log + ResponseJudge.took(t0);
    return new AttemptOutcome(DeliveryResult.retry(Attempt.bound(detail)), EndpointState.Verdict.FAILED, null, why);
  }

  /** How long the JDK client keeps an idle HTTP/1.1 connection in its pool (jdk.httpclient.keepalive.timeout). */
  private static long clientKeepAliveSeconds() {
    try {
      return Long.parseLong(System.getProperty("jdk.httpclient.keepalive.timeout", "30").strip());
    } catch (NumberFormatException e) {
      return 30;
    }
  }
}
