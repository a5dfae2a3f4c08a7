package dev.herald.server;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.schedule.DurationText;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.util.RawValue;

/** The API's JSON for notices, attempts and definitions. Times are ISO-8601 instants in UTC. */
final class Views {
  /** What a write-only option shows in every response. */
  static final String MASK = "********";

  private static final Pattern SECRET_KEY = Pattern.compile(".*(secret|password|token|credential|api-key|apikey).*");

  private Views() {}

  /** The text cut to {@code max} characters (columns have a size). */
  static String bounded(String s, int max) {
    return s == null || s.length() <= max ? s : s.substring(0, max);
  }

  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  static ArrayNode array() {
    return JsonNodeFactory.instance.arrayNode();
  }

  /** Option keys whose values are never shown: {@code secrets} and anything naming a secret, password or token. */
  static boolean isSecret(String optionKey) {
    return SECRET_KEY.matcher(optionKey.toLowerCase(Locale.ROOT)).matches();
  }

  static ObjectNode notice(Notice n) {
    ObjectNode o = object();
    o.put("id", n.id().toString());
    o.put("definition", n.definition());
    o.put("status", n.status().name());
    o.putRawValue("payload", new RawValue(n.payload()));
    CallbackTargets targets = CallbackTargets.read(n.target());
    o.put("callbackUrl", targets.callbackUrl());
    if (!targets.fallbackUrls().isEmpty()) {
      targets.fallbackUrls().forEach(o.putArray("fallbackUrls")::add);
    }
    o.put("description", n.description());
    o.put("idempotencyKey", n.idempotencyKey());
    o.put("attempts", n.attempts());
    o.put("lastError", serverWording(n.lastError()));
    time(o, "fireAt", n.fireAt());
    time(o, "nextAttemptAt", n.nextAttemptAt());
    time(o, "lastAttemptAt", n.lastAttemptAt());
    time(o, "createdAt", n.createdAt());
    time(o, "updatedAt", n.updatedAt());
    time(o, "finishedAt", n.finishedAt());
    o.put("traceparent", n.traceparent());
    return o;
  }

  static ObjectNode detail(NoticeDetail d) {
    ObjectNode o = notice(d.notice());
    ArrayNode log = o.putArray("attemptLog");
    d.attempts().forEach(a -> log.add(attempt(a)));
    return o;
  }

  static ObjectNode attempt(Attempt a) {
    ObjectNode o = object();
    o.put("number", a.number());
    time(o, "startedAt", a.startedAt());
    o.put("durationMs", a.duration() == null ? null : a.duration().toMillis());
    o.put("outcome", a.outcome() == null ? null : a.outcome().name());
    o.put("detail", serverWording(a.detail()));
    o.put("node", a.node());
    return o;
  }

  static ObjectNode definition(NoticeDefinition d, boolean builtIn) {
    ObjectNode o = object();
    o.put("name", d.name());
    o.put("channel", d.channel());
    o.put("target", d.target()); // null: each notice gives its own URL
    o.put("retry", d.retrySchedule().text());
    o.put("maxAttempts", d.maxAttempts());
    o.put("maxInterval", duration(d.maxInterval()));
    o.put("alert", d.alertPolicy().text());
    o.put("confirmRequired", d.confirmRequired());
    o.put("confirmTimeout", duration(d.confirmTimeout()));
    o.put("ordering", d.ordering().text());
    o.put("description", d.description());
    ObjectNode options = o.putObject("options");
    for (Map.Entry<String, String> e : d.options().entrySet()) {
      options.put(e.getKey(), isSecret(e.getKey()) ? MASK : e.getValue());
    }
    o.put("builtIn", builtIn);
    return o;
  }

  /** Options holding URLs, masked for those who may not see credentials. */
  private static final java.util.List<String> URL_OPTIONS =
      java.util.List.of("fallback-targets", "alert.webhook", "callback-origins");

  /** Masks the URLs of a definition's view ({@link UrlMasking}): its target and URL options. */
  static void maskUrls(ObjectNode definition) {
    if (definition.hasNonNull("target")) {
      definition.put("target", UrlMasking.mask(definition.get("target").asString()));
    }
    ObjectNode options = (ObjectNode) definition.get("options");
    for (String key : URL_OPTIONS) {
      if (options != null && options.hasNonNull(key)) {
        options.put(key, UrlMasking.mask(options.get(key).asString()));
      }
    }
  }

  static String duration(Duration d) {
    if (d == null) {
      return null;
    }
    try {
      return DurationText.format(d);
    } catch (IllegalArgumentException e) {
      return d.toString();
    }
  }

  static void time(ObjectNode o, String name, Instant t) {
    o.put(name, t == null ? null : t.truncatedTo(ChronoUnit.MILLIS).toString()); // stored to the millisecond
  }

  /**
   * The webhook channel's advice names its Java builder; the server's operators set properties.
   * Turns {@code HttpChannel.builder().allowPrivateNetworks(true) or allow("10.0.0.5")} into {@code
   * herald.http.allow-private-networks=true or herald.http.allow=10.0.0.5}.
   */
  static String serverWording(String text) {
    if (text == null || !text.contains("HttpChannel.builder()")) {
      return text;
    }
    return text
        .replaceAll("HttpChannel\\.builder\\(\\)\\.allowPrivateNetworks\\(true\\) or allow\\(\"([^\"]*)\"\\)",
            "herald.http.allow-private-networks=true or herald.http.allow=$1")
        .replaceAll("HttpChannel\\.builder\\(\\)\\.allow\\(\"([^\"]*)\"\\)", "herald.http.allow=$1");
  }
}
