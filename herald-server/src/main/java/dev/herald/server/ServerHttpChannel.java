package dev.herald.server;

import dev.herald.DeliveryResult;
import dev.herald.NoticeDefinition;
import dev.herald.channel.http.HttpChannel;
import dev.herald.spi.Channel;
import dev.herald.spi.Delivery;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's {@code http} channel: the webhook channel, given each definition with its secrets
 * opened ({@link DefinitionSecrets}: they are sealed at rest) and without the options the server reads
 * itself ({@value CallbackOrigins#OPTION}), which the channel would refuse as unknown.
 */
public final class ServerHttpChannel implements Channel {
  private record Opened(NoticeDefinition stored, NoticeDefinition opened) {}

  private final HttpChannel http;
  private final DefinitionSecrets secrets;
  private final java.util.List<dev.herald.spi.DefinitionOption> declared;
  /** Per definition name, the opened copy of the stored object last seen (the channel caches by identity). */
  private final Map<String, Opened> opened = new ConcurrentHashMap<>();

  ServerHttpChannel(HttpChannel http, DefinitionSecrets secrets) {
    this.http = http;
    this.secrets = secrets;
    this.declared = optionsOf(http);
  }

  /** The webhook channel itself: endpoints, rates, the SSRF check of URLs. */
  public HttpChannel http() {
    return http;
  }

  @Override
  public String name() {
    return http.name();
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery d) {
    NoticeDefinition plain;
    try {
      plain = opened(d.definition());
    } catch (IllegalStateException e) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("definition '" + d.definition().name()
          + "': " + e.getMessage() + "\n(no request sent)"));
    }
    return http.deliver(plain == d.definition() ? d : new Delivery(d.notice(), plain, d.attempt(), d.traceparent()));
  }

  private NoticeDefinition opened(NoticeDefinition stored) {
    Opened o = opened.get(stored.name());
    if (o != null && o.stored() == stored) {
      return o.opened();
    }
    NoticeDefinition plain = secrets.open(stored);
    if (opened.size() < 10_000) {
      opened.put(stored.name(), new Opened(stored, plain));
    }
    return plain;
  }

  @Override
  public void validateTarget(String target) {
    http.validateTarget(target);
  }

  @Override
  public boolean perNoticeTargets() {
    return http.perNoticeTargets();
  }

  /** The webhook channel's options and {@code callback-origins}, which the server reads. */
  @Override
  public java.util.List<dev.herald.spi.DefinitionOption> options() {
    return declared;
  }

  private static java.util.List<dev.herald.spi.DefinitionOption> optionsOf(HttpChannel http) {
    java.util.List<dev.herald.spi.DefinitionOption> out = new java.util.ArrayList<>(http.options());
    out.add(dev.herald.spi.DefinitionOption.text(CallbackOrigins.OPTION,
        "origins, separated by spaces, where its notices' own callback URLs may point"));
    return java.util.List.copyOf(out);
  }

  @Override
  public void validate(NoticeDefinition d) {
    CallbackOrigins.read(d, "options." + CallbackOrigins.OPTION);
    http.validate(forChannel(secrets.open(d)));
  }

  /** The definition without the options the server reads itself. */
  static NoticeDefinition forChannel(NoticeDefinition d) {
    if (!d.options().containsKey(CallbackOrigins.OPTION)) {
      return d;
    }
    Map<String, String> options = new LinkedHashMap<>(d.options());
    options.remove(CallbackOrigins.OPTION);
    return new NoticeDefinition(d.name(), d.channel(), d.target(), d.retrySchedule(), d.maxAttempts(),
        d.maxInterval(), d.alertPolicy(), d.confirmRequired(), d.confirmTimeout(), d.description(), options,
        d.ordering());
  }

  @Override
  public void close() {
    http.close();
  }
}
