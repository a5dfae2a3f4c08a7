package dev.herald.events;

import dev.herald.AlertPolicy;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.Ordering;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A receiver of events: a partner's URL (or another channel's target) subscribed to event types.
 * Its notices belong to a definition of its own ({@link #delivery()}, named by {@link
 * Tenancy#endpointDefinition}), so each endpoint has its own retries, signing secrets, headers,
 * limits, attempt log, alerts and circuit, and one failing endpoint holds back no other.
 *
 * @param tenant the tenant it belongs to ({@link Tenancy#DEFAULT} when null)
 * @param id unique within the tenant: 1 to 100 of letters, digits, '_', '-', starting with a letter or digit
 * @param description who it is, for people; optional
 * @param enabled whether it gets new events; a disabled endpoint gets none (what it already has is delivered)
 * @param eventTypes the event type names it subscribes to; {@value #ALL_TYPES} for every type of its tenant
 * @param filter a {@link PayloadFilter} its events' payloads must pass; null for every payload
 * @param delivery how its notices are delivered: channel, target, retries and channel options
 *     (for http: {@code secrets}, {@code header.<name>}, {@code max-rate}, {@code max-concurrency}, ...)
 * @param createdAt set when stored; null before
 * @param updatedAt set when stored; null before
 */
public record EventEndpoint(String tenant, String id, String description, boolean enabled, Set<String> eventTypes,
    String filter, NoticeDefinition delivery, Instant createdAt, Instant updatedAt) {
  /** Subscribes to every event type of the endpoint's tenant. */
  public static final String ALL_TYPES = "*";
  static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,99}");
  static final int MAX_TYPES = 500;
  private static final Pattern HEADER = Pattern.compile("[A-Za-z0-9][A-Za-z0-9-]{0,79}");
  /** The HTTP channel's option of signing secrets (space-separated, newest first). */
  static final String SECRETS = "secrets";

  public EventEndpoint {
    tenant = Tenancy.check(tenant, "tenant");
    if (id == null || !ID.matcher(id).matches()) {
      throw new InvalidInputException("id", "'" + id + "' must be 1 to 100 of letters, digits, '_' or '-', starting"
          + " with a letter or digit");
    }
    if (description != null && description.length() > 2000) {
      throw new InvalidInputException("description", "must be at most 2000 characters, was " + description.length());
    }
    eventTypes = eventTypes == null ? Set.of() : java.util.Collections.unmodifiableSet(new TreeSet<>(eventTypes));
    if (eventTypes.size() > MAX_TYPES) {
      throw new InvalidInputException("eventTypes", "at most " + MAX_TYPES + " types, got " + eventTypes.size());
    }
    for (String t : eventTypes) {
      if (t == null || !(t.equals(ALL_TYPES) || EventType.NAME.matcher(t).matches())) {
        throw new InvalidInputException("eventTypes", "'" + t + "' is not an event type name (or " + ALL_TYPES
            + " for all)");
      }
    }
    if (filter != null) {
      PayloadFilter.parse(filter, "filter");
    }
    if (delivery == null) {
      throw new InvalidInputException("delivery", "must not be null: give a url or a channel and target");
    }
    String expected = Tenancy.endpointDefinition(tenant, id);
    if (!delivery.name().equals(expected)) {
      throw new InvalidInputException("delivery.name", "must be " + expected + " (the endpoint's own definition),"
          + " was " + delivery.name());
    }
  }

  /** Starts an endpoint of the default tenant: {@link Builder#url} or {@link Builder#channel} says where it goes. */
  public static Builder builder(String id) {
    return new Builder(id);
  }

  /** A builder preloaded with this endpoint, to change it. */
  public Builder toBuilder() {
    Builder b = new Builder(id).tenant(tenant).description(description).enabled(enabled).filter(filter);
    b.types.addAll(eventTypes);
    b.delivery = delivery;
    return b;
  }

  /** Whether it subscribes to {@code type}. */
  public boolean subscribes(String type) {
    return eventTypes.contains(type) || eventTypes.contains(ALL_TYPES);
  }

  /** Its signing secrets, newest first (empty when it signs nothing). */
  public List<String> secrets() {
    String s = delivery.option(SECRETS, null);
    return s == null || s.isBlank() ? List.of() : List.of(s.strip().split("\\s+"));
  }

  /** The headers it sends with every request (name in lower case to value), secret ones included. */
  public Map<String, String> headers() {
    Map<String, String> out = new LinkedHashMap<>();
    delivery.options().forEach((k, v) -> {
      if (k.startsWith(HEADER_OPTION)) {
        out.put(k.substring(HEADER_OPTION.length()), v);
      } else if (k.startsWith(SECRET_HEADER_OPTION)) {
        out.put(k.substring(SECRET_HEADER_OPTION.length()), v);
      }
    });
    return out;
  }

  /** The HTTP channel's option of a header sent as given (shown in the attempt log). */
  public static final String HEADER_OPTION = "header.";
  /** The HTTP channel's option of a header whose value is a secret (masked in logs and views, sealed at rest by the server). */
  public static final String SECRET_HEADER_OPTION = "secret-header.";

  /**
   * Fluent construction; {@link #build()} checks every field and names the first bad one. Delivery
   * settings map to the endpoint's definition and its channel options.
   */
  public static final class Builder {
    private final String id;
    private String tenant;
    private String description;
    private boolean enabled = true;
    private final Set<String> types = new TreeSet<>();
    private String filter;
    private NoticeDefinition delivery;
    private String channel;
    private String target;
    private String retry;
    private Integer maxAttempts;
    private AlertPolicy alert;
    private Ordering ordering;
    private final Map<String, String> options = new LinkedHashMap<>();
    private final java.util.List<String> secrets = new java.util.ArrayList<>();

    private Builder(String id) {
      this.id = id;
    }

    public Builder tenant(String id) {
      this.tenant = id;
      return this;
    }

    public Builder description(String text) {
      this.description = text;
      return this;
    }

    public Builder enabled(boolean on) {
      this.enabled = on;
      return this;
    }

    /** Subscribes to these event types ({@value #ALL_TYPES} for all). */
    public Builder subscribe(String... typeNames) {
      types.addAll(List.of(typeNames));
      return this;
    }

    /** Replaces the subscribed types. */
    public Builder eventTypes(Collection<String> typeNames) {
      types.clear();
      types.addAll(typeNames);
      return this;
    }

    /** A {@link PayloadFilter}; null for none. */
    public Builder filter(String json) {
      this.filter = json;
      return this;
    }

    /** Delivers with the http channel to {@code url}. */
    public Builder url(String url) {
      return channel("http", url);
    }

    /** Delivers with another channel, e.g. {@code channel("kafka", "partner-orders")}. */
    public Builder channel(String channelName, String channelTarget) {
      this.channel = channelName;
      this.target = channelTarget;
      return this;
    }

    /** The retry schedule, e.g. {@code 5s, 1m, 10m, 1h}. */
    public Builder retry(String schedule) {
      this.retry = schedule;
      return this;
    }

    public Builder maxAttempts(int attempts) {
      this.maxAttempts = attempts;
      return this;
    }

    public Builder alert(AlertPolicy policy) {
      this.alert = policy;
      return this;
    }

    /** Delivers the events of one ordering key one at a time, in publish order ({@link EventRequest#orderingKey}). */
    public Builder ordered(Ordering onDeadHead) {
      this.ordering = onDeadHead;
      return this;
    }

    /** Adds a Standard Webhooks signing secret ({@code whsec_<base64>}); the first added is the newest. */
    public Builder secret(String whsec) {
      secrets.add(whsec);
      return this;
    }

    /** A header sent with every request, shown in the attempt log. */
    public Builder header(String name, String value) {
      options.put(HEADER_OPTION + headerName(name), value);
      return this;
    }

    /** A header sent with every request whose value is a secret (an API key): masked wherever it is shown. */
    public Builder secretHeader(String name, String value) {
      options.put(SECRET_HEADER_OPTION + headerName(name), value);
      return this;
    }

    /** Most requests per period to the endpoint, e.g. {@code 10/s}. */
    public Builder maxRate(String rate) {
      return option("max-rate", rate);
    }

    /** Most requests in flight to the endpoint. */
    public Builder maxConcurrency(int n) {
      return option("max-concurrency", Integer.toString(n));
    }

    /**
     * A client certificate (PEM, the chain with the leaf first) and its private key (PEM, PKCS #8)
     * for mutual TLS: the http channel presents it to this endpoint only. Line breaks are kept as
     * spaces (options are one line).
     */
    public Builder clientCertificate(String certificatePem, String privateKeyPem) {
      option("tls.certificate", oneLine(certificatePem));
      return option("tls.secret-key", oneLine(privateKeyPem));
    }

    /** A client certificate and key for mutual TLS from a PKCS #12 key store. */
    public Builder clientKeyStore(byte[] pkcs12, String password) {
      option("tls.secret-key-store", java.util.Base64.getEncoder().encodeToString(pkcs12));
      return option("tls.key-store-password", password);
    }

    /** The certificate authorities (PEM) to trust for this endpoint's server, instead of the JVM's. */
    public Builder trustedCertificates(String caPem) {
      return option("tls.ca", oneLine(caPem));
    }

    /**
     * OAuth 2.0 client credentials: every request carries a bearer token fetched from {@code tokenUrl}
     * (and cached until shortly before it expires); {@code scope} may be null.
     */
    public Builder oauth2(String tokenUrl, String clientId, String clientSecret, String scope) {
      option("oauth2.url", tokenUrl);
      option("oauth2.client-id", clientId);
      option("oauth2.client-secret", clientSecret);
      return scope == null ? this : option("oauth2.scope", scope);
    }

    private static String oneLine(String pem) {
      return pem == null ? null : pem.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** Any other option of the endpoint's channel. */
    public Builder option(String key, String value) {
      options.put(key, value);
      return this;
    }

    private static String headerName(String name) {
      if (name == null || !HEADER.matcher(name).matches()) {
        throw new InvalidInputException("headers", "'" + name + "' must be a header name of letters, digits and '-'");
      }
      return name.toLowerCase(Locale.ROOT);
    }

    public EventEndpoint build() {
      String t = Tenancy.check(tenant, "tenant");
      if (id == null || !ID.matcher(id).matches()) {
        throw new InvalidInputException("id", "'" + id + "' must be 1 to 100 of letters, digits, '_' or '-',"
            + " starting with a letter or digit");
      }
      NoticeDefinition.Builder d = delivery != null
          ? rename(delivery, Tenancy.endpointDefinition(t, id))
          : NoticeDefinition.builder(Tenancy.endpointDefinition(t, id));
      if (channel != null) {
        d.channel(channel, target);
      } else if (delivery == null) {
        throw new InvalidInputException("url", "is required: where the endpoint's events go (or a channel and target)");
      }
      if (retry != null) {
        d.retry(retry);
      }
      if (maxAttempts != null) {
        d.maxAttempts(maxAttempts);
      }
      if (alert != null) {
        d.alert(alert);
      }
      if (ordering != null) {
        d.ordered(ordering);
      }
      options.forEach(d::option);
      if (!secrets.isEmpty()) {
        d.option(SECRETS, String.join(" ", secrets));
      }
      d.description(description == null ? "events to endpoint " + id : "events to endpoint " + id + ": "
          + (description.length() > 1900 ? description.substring(0, 1900) : description));
      return new EventEndpoint(t, id, description, enabled, types, filter, d.build(), null, null);
    }

    private static NoticeDefinition.Builder rename(NoticeDefinition d, String name) {
      NoticeDefinition.Builder b = NoticeDefinition.builder(name);
      if (d.perNoticeTarget()) {
        b.perNoticeTarget(d.channel());
      } else {
        b.channel(d.channel(), d.target());
      }
      b.retry(d.retrySchedule()).maxAttempts(d.maxAttempts()).maxInterval(d.maxInterval()).alert(d.alertPolicy())
          .confirmRequired(d.confirmRequired()).confirmTimeout(d.confirmTimeout()).ordered(d.ordering());
      d.options().forEach(b::option);
      return b;
    }
  }
}
