package dev.herald.channel.http;

import dev.herald.json.JsonTree;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * OAuth 2.0 access tokens per client, fetched with the client-credentials grant and cached until
 * shortly before they expire (a tenth of their life, at most a minute, early). One fetch at a time per
 * client: attempts that need a token meanwhile wait for the same answer. A receiver's 401 drops the
 * cached token, so that the next attempt fetches a new one.
 */
final class OAuth2Tokens {
  /** How long a token without {@code expires_in} is used. */
  static final Duration DEFAULT_LIFETIME = Duration.ofMinutes(5);
  private static final int MAX_CLIENTS = 10_000;
  private static final int BODY_LIMIT = 64 * 1024;

  /** A token and when to stop using it. */
  record Token(String value, long refreshAtMillis) {}

  /** Why no token: the token endpoint's answer, for the attempt log. */
  static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private final HttpTransport transport;
  private final Clock clock;
  private final UnaryOperator<String> open;
  private final Map<String, CompletableFuture<Token>> tokens = new ConcurrentHashMap<>();

  OAuth2Tokens(HttpTransport transport, Clock clock, UnaryOperator<String> open) {
    this.transport = transport;
    this.clock = clock;
    this.open = open;
  }

  /** A valid token for the client: the cached one, or one fetched now. Completes exceptionally with {@link Refused}. */
  CompletableFuture<Token> token(OAuth2Client c, Duration timeout) {
    long now = clock.millis();
    CompletableFuture<Token> cached = tokens.get(c.key());
    if (cached != null && (!cached.isDone() || usable(cached, now))) {
      return cached;
    }
    CompletableFuture<Token> fresh = new CompletableFuture<>();
    CompletableFuture<Token> won = tokens.compute(c.key(), (k, old) ->
        old != null && old != cached && (!old.isDone() || usable(old, now)) ? old : fresh);
    if (won == fresh) {
      if (tokens.size() > MAX_CLIENTS) {
        tokens.entrySet().removeIf(e -> e.getValue() != fresh && e.getValue().isDone());
      }
      fetch(c, timeout, fresh);
    }
    return won;
  }

  private static boolean usable(CompletableFuture<Token> f, long now) {
    Token t = f.getNow(null);
    return t != null && now < t.refreshAtMillis();
  }

  /** Forgets the client's token if it is still {@code rejected} (the receiver answered 401 to it). */
  void rejected(OAuth2Client c, String rejected) {
    tokens.computeIfPresent(c.key(), (k, f) -> {
      Token t = f.getNow(null);
      return t != null && t.value().equals(rejected) ? null : f;
    });
  }

  private void fetch(OAuth2Client c, Duration timeout, CompletableFuture<Token> out) {
    String secret = open.apply(c.clientSecret());
    StringBuilder form = new StringBuilder("grant_type=client_credentials");
    if (c.scope() != null) {
      form.append("&scope=").append(enc(c.scope()));
    }
    if (c.audience() != null) {
      form.append("&audience=").append(enc(c.audience()));
    }
    List<String> headers = new ArrayList<>(List.of("accept", "application/json"));
    if (c.basicAuth()) {
      // RFC 6749 2.3.1: the id and secret form-encoded, then Basic
      String pair = enc(c.clientId()) + ":" + enc(secret);
      headers.add("authorization");
      headers.add("Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    } else {
      form.append("&client_id=").append(enc(c.clientId())).append("&client_secret=").append(enc(secret));
    }
    long started = clock.millis();
    CompletableFuture<HttpTransport.Answer> call;
    try {
      call = transport.post(c.tokenUrl(), headers, form.toString().getBytes(StandardCharsets.UTF_8),
          HttpTransport.FORM, timeout, BODY_LIMIT);
    } catch (RuntimeException e) {
      fail(c, out, new Refused("cannot ask the OAuth 2.0 token endpoint " + c.tokenUrl().uri() + ": " + e));
      return;
    }
    call.whenComplete((answer, error) -> {
      if (error != null) {
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        fail(c, out, new Refused("OAuth 2.0 token endpoint " + c.tokenUrl().uri() + " did not answer: "
            + TransportErrors.message(cause)));
        return;
      }
      try {
        out.complete(read(c, answer, started));
      } catch (Refused r) {
        fail(c, out, r);
      }
    });
  }

  private void fail(OAuth2Client c, CompletableFuture<Token> out, Refused why) {
    tokens.remove(c.key(), out); // the next attempt asks again
    out.completeExceptionally(why);
  }

  private static Token read(OAuth2Client c, HttpTransport.Answer a, long started) {
    String body = new String(a.body(), StandardCharsets.UTF_8);
    String where = "OAuth 2.0 token endpoint " + c.tokenUrl().uri();
    if (a.status() / 100 != 2) {
      throw new Refused(where + " answered HTTP " + a.status() + ": " + Attemptable.firstLine(body, 300));
    }
    Object json;
    try {
      json = JsonTree.parse(body, "token response");
    } catch (RuntimeException e) {
      throw new Refused(where + " answered HTTP " + a.status() + " without JSON: " + Attemptable.firstLine(body, 300));
    }
    Object token = JsonTree.at(json, "access_token");
    if (!(token instanceof String value) || value.isBlank()) {
      throw new Refused(where + " answered without an access_token");
    }
    Object type = JsonTree.at(json, "token_type");
    if (type instanceof String t && !t.equalsIgnoreCase("bearer")) {
      throw new Refused(where + " answered a token of type " + t + "; only Bearer tokens are sent");
    }
    long lifetime = DEFAULT_LIFETIME.toMillis();
    if (JsonTree.at(json, "expires_in") instanceof JsonTree.JsonNumber n) {
      try {
        lifetime = Math.max(0, (long) (Double.parseDouble(n.text()) * 1000));
      } catch (NumberFormatException ignored) {
        // not a number: the default lifetime
      }
    }
    long early = Math.min(60_000, lifetime / 10);
    return new Token(value, started + lifetime - early);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** Text for the attempt log. */
  static final class Attemptable {
    private Attemptable() {}

    static String firstLine(String s, int max) {
      String line = s.strip().lines().findFirst().orElse("(empty body)");
      return line.length() > max ? line.substring(0, max) + "..." : line;
    }
  }
}
