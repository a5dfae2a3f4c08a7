package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.schedule.DurationText;
import dev.herald.spi.DefinitionOption;
import java.time.Duration;
import java.util.List;

/**
 * A definition's HTTP options, read and checked.
 *
 * @param timeout option {@code timeout}: the whole exchange, request to last body byte
 * @param expectedBody option {@code expected-body}, trimmed; null to accept any 2xx body
 * @param signer option {@code secrets}
 * @param maxRetryAfter option {@code max-retry-after}: cap on a receiver's Retry-After
 * @param maxConcurrency option {@code max-concurrency}: requests in flight to the endpoint
 * @param maxRate option {@code max-rate}: requests per period to the endpoint; null for no limit
 * @param fallbackTargets option {@code fallback-targets}: where the definition's notices go when its target fails
 * @param failoverAfter option {@code failover-after}: failed attempts on a target before the next one is tried
 * @param headers options {@code header.<name>} and {@code secret-header.<name>}: sent with every request
 * @param tls options {@code tls.*}: a client certificate for mutual TLS, trusted CAs; null for the channel's TLS
 * @param oauth2 options {@code oauth2.*}: client credentials for a bearer token; null for none
 * @param fullSuccessLog option {@code full-success-log}: a success's attempt log keeps every header, as a
 *     failure's does; by default it keeps the request line, the status and the start of the body
 */
record HttpOptions(
    Duration timeout, String expectedBody, Signer signer, Duration maxRetryAfter, int maxConcurrency, Rate maxRate,
    List<Target> fallbackTargets, int failoverAfter, List<Header> headers, TlsIdentity tls, OAuth2Client oauth2,
    boolean fullSuccessLog) {
  /** A header the definition adds to each request; a secret one is masked in the attempt log. */
  record Header(String name, String value, boolean secret) {}

  static final String HEADER = "header.";
  static final String SECRET_HEADER = "secret-header.";
  /** Headers the channel sets itself: a definition's headers never replace them. */
  static final java.util.Set<String> OWN_HEADERS = java.util.Set.of("content-type", "content-length", "host",
      "user-agent", "herald-attempt", "traceparent", "connection", "transfer-encoding");
  static final String TIMEOUT = "timeout";
  static final String EXPECTED_BODY = "expected-body";
  static final String SECRETS = "secrets";
  static final String MAX_RETRY_AFTER = "max-retry-after";
  static final String MAX_CONCURRENCY = "max-concurrency";
  static final String MAX_RATE = "max-rate";
  static final String FALLBACK_TARGETS = "fallback-targets";
  static final String FAILOVER_AFTER = "failover-after";
  static final String FULL_SUCCESS_LOG = "full-success-log";
  static final int DEFAULT_FAILOVER_AFTER = 3;

  static final Duration DEFAULT_MAX_RETRY_AFTER = Duration.ofHours(1);

  /**
   * Every option this channel reads, with its type: a definition that sets another is refused when it
   * is saved (by the engine, with the closest of these), and a value of the wrong type names its option.
   */
  static final List<DefinitionOption> DECLARED = java.util.stream.Stream.of(List.of(
      DefinitionOption.duration(TIMEOUT, "limit on the whole exchange, request to last body byte"),
      DefinitionOption.text(EXPECTED_BODY, "the body a 2xx must carry (trimmed)"),
      DefinitionOption.text(SECRETS, "space-separated whsec_<base64 key> signing secrets"),
      DefinitionOption.duration(MAX_RETRY_AFTER, "cap on a receiver's Retry-After"),
      DefinitionOption.wholeNumber(MAX_CONCURRENCY, 1, 10_000, "requests in flight to the endpoint"),
      DefinitionOption.text(MAX_RATE, "requests per period to the endpoint: 100/s, 6000/m, 5/10s"),
      DefinitionOption.text(FALLBACK_TARGETS, "fail-over URLs after the target, separated by spaces"),
      DefinitionOption.wholeNumber(FAILOVER_AFTER, 1, 1000, "failed attempts on a target before the next one"),
      DefinitionOption.bool(FULL_SUCCESS_LOG, "log a success's headers too, as a failure's (default false)"),
      DefinitionOption.family(HEADER, "a header sent with every request"),
      DefinitionOption.family(SECRET_HEADER, "a header sent with every request, masked in the attempt log")),
      TlsIdentity.OPTIONS.stream().map(k -> DefinitionOption.text(k, "mutual TLS: client certificate, key, trusted CAs")).toList(),
      OAuth2Client.OPTIONS.stream().map(k -> DefinitionOption.text(k, "OAuth 2.0 client credentials")).toList())
      .flatMap(List::stream).toList();

  /**
   * Whether an option's value is a secret: masked wherever it is shown, and sealed at rest where a
   * server seals them. Every such option names a secret or password: {@code secrets}, {@code
   * secret-header.<name>}, {@code tls.secret-key}, {@code tls.secret-key-store}, {@code
   * tls.key-store-password}, {@code oauth2.client-secret}.
   */
  static boolean isSecret(String key) {
    return key.equals(SECRETS) || key.startsWith(SECRET_HEADER) || key.equals(TlsIdentity.SECRET_KEY)
        || key.equals(TlsIdentity.SECRET_KEY_STORE) || key.equals(TlsIdentity.KEY_STORE_PASSWORD)
        || key.equals(OAuth2Client.CLIENT_SECRET);
  }

  /**
   * @param open opens a secret option's value (sealed at rest by a server)
   * @throws InvalidInputException naming {@code options.<key>}
   */
  static HttpOptions of(NoticeDefinition d, Duration defaultTimeout, int defaultConcurrency,
      java.util.function.UnaryOperator<String> open) {
    Duration timeout = defaultTimeout;
    String t = d.option(TIMEOUT, null);
    if (t != null) {
      timeout = DurationText.parse(t, "options." + TIMEOUT);
      if (timeout.isZero()) {
        throw new InvalidInputException("options." + TIMEOUT, "must be positive, was " + t.strip());
      }
    }
    String expected = d.option(EXPECTED_BODY, null);
    if (expected != null) {
      expected = expected.strip();
      if (expected.isEmpty()) {
        throw new InvalidInputException("options." + EXPECTED_BODY, "must not be blank (leave it out to accept any body)");
      }
    }
    Duration cap = DEFAULT_MAX_RETRY_AFTER;
    String c = d.option(MAX_RETRY_AFTER, null);
    if (c != null) {
      cap = DurationText.parse(c, "options." + MAX_RETRY_AFTER);
    }
    int concurrency = defaultConcurrency;
    String m = d.option(MAX_CONCURRENCY, null);
    if (m != null) {
      try {
        concurrency = Integer.parseInt(m.strip());
      } catch (NumberFormatException e) {
        concurrency = -1;
      }
      if (concurrency < 1 || concurrency > 10_000) {
        throw new InvalidInputException("options." + MAX_CONCURRENCY, "must be a whole number from 1 to 10000, was '" + m + "'");
      }
    }
    String r = d.option(MAX_RATE, null);
    Rate rate = r == null ? null : Rate.parse(r, "options." + MAX_RATE);
    String f = d.option(FALLBACK_TARGETS, null);
    List<Target> fallbacks = f == null ? List.of() : FailoverTargets.parse(f, "options." + FALLBACK_TARGETS);
    int failoverAfter = DEFAULT_FAILOVER_AFTER;
    String a = d.option(FAILOVER_AFTER, null);
    if (a != null) {
      try {
        failoverAfter = Integer.parseInt(a.strip());
      } catch (NumberFormatException e) {
        failoverAfter = -1;
      }
      if (failoverAfter < 1 || failoverAfter > 1000) {
        throw new InvalidInputException("options." + FAILOVER_AFTER, "must be a whole number from 1 to 1000, was '" + a + "'");
      }
    }
    String secrets = d.option(SECRETS, null);
    return new HttpOptions(timeout, expected, Signer.parse(secrets == null ? null : open.apply(secrets)), cap,
        concurrency, rate, fallbacks, failoverAfter, headers(d, open), TlsIdentity.of(d, open),
        OAuth2Client.of(d, open), Boolean.parseBoolean(d.option(FULL_SUCCESS_LOG, "false").strip()));
  }

  private static final java.util.regex.Pattern HEADER_NAME = java.util.regex.Pattern.compile("[a-z0-9][a-z0-9-]{0,79}");

  /** @throws InvalidInputException naming {@code options.<key>} */
  private static List<Header> headers(NoticeDefinition d, java.util.function.UnaryOperator<String> open) {
    List<Header> out = new java.util.ArrayList<>();
    for (java.util.Map.Entry<String, String> e : d.options().entrySet()) {
      String key = e.getKey();
      boolean secret = key.startsWith(SECRET_HEADER);
      if (!secret && !key.startsWith(HEADER)) {
        continue;
      }
      String name = key.substring(secret ? SECRET_HEADER.length() : HEADER.length());
      if (!HEADER_NAME.matcher(name).matches()) {
        throw new InvalidInputException("options." + key, "'" + name + "' is not a header name (lower-case letters,"
            + " digits and '-')");
      }
      if (OWN_HEADERS.contains(name) || name.startsWith("webhook-")) {
        throw new InvalidInputException("options." + key, "header " + name + " is the channel's own; it cannot be"
            + " replaced");
      }
      String value = secret ? open.apply(e.getValue()) : e.getValue();
      if (value.isEmpty() || value.chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch == 0x7f)) {
        throw new InvalidInputException("options." + key, "must be a header value: not empty, no control characters");
      }
      out.add(new Header(name, value, secret));
    }
    return List.copyOf(out);
  }
}
