package dev.herald.events;

import dev.herald.Definitions;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeTransaction;
import dev.herald.Page;
import dev.herald.StoreException;
import dev.herald.engine.Ids;
import dev.herald.json.JsonTree;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Event types, the endpoints subscribed to them, and publishing: {@code herald.events()}.
 *
 * <p>Publishing an event writes, in the publisher's transaction, the event, one notice for each
 * enabled endpoint subscribed to its type whose filter the payload passes, and a delivery row
 * linking each endpoint to its notice: all of it or nothing. From there each notice is an ordinary
 * notice of its endpoint's definition: retried, logged, alerted and shown per endpoint.
 *
 * <pre>{@code
 * herald.events().saveType(EventType.of("order.paid", "An order was paid", schema));
 * herald.events().saveEndpoint(EventEndpoint.builder("acme").url("https://acme.example/hooks")
 *     .subscribe("order.paid").build());
 * herald.inTransaction(tx -> {
 *   // ... business writes with tx.connection() ...
 *   return tx.publish(EventRequest.of("order.paid", "{\"order\":42}").idempotencyKey("order-42-paid"));
 * });
 * }</pre>
 */
public final class Events {
  private static final Logger log = LoggerFactory.getLogger(Events.class);
  /** Room left in a notice's ordering key for the endpoint's part of it. */
  public static final int MAX_ORDERING_KEY = 180;
  static final int MAX_KEY = 200;
  private static final int CACHE_LIMIT = 10_000;

  private record Compiled<T>(long updatedAt, T value) {}

  private final EventTables tables;
  private final Definitions definitions;
  private final Clock clock;
  private final int maxPayloadBytes;
  private final OwnTransactions ownTransactions;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Compiled<JsonSchema>> schemas = new ConcurrentHashMap<>();
  private final Map<String, Compiled<PayloadFilter>> filters = new ConcurrentHashMap<>();

  /** Runs work in a transaction of Herald's own ({@link dev.herald.Herald#inTransaction}). */
  @FunctionalInterface
  public interface OwnTransactions {
    <T> T inTransaction(dev.herald.TransactionWork<T> work);
  }

  /** Built by {@link dev.herald.Herald}; reach it with {@code herald.events()}. */
  public Events(javax.sql.DataSource dataSource, dev.herald.store.jdbc.Dialect dialect, Definitions definitions,
      Clock clock, int maxPayloadBytes, OwnTransactions ownTransactions) {
    this.tables = new EventTables(dataSource, dialect);
    this.definitions = definitions;
    this.clock = clock;
    this.maxPayloadBytes = maxPayloadBytes;
    this.ownTransactions = ownTransactions;
  }

  // ------------------------------------------------------------------------------------ event types

  /** Creates or replaces an event type (its schema applies to events published from now on). */
  public EventType saveType(EventType type) {
    EventType saved = tables.saveType(type, Instant.ofEpochMilli(clock.millis()));
    schemas.remove(type.tenant() + "/" + type.name());
    return saved;
  }

  public Optional<EventType> findType(String tenant, String name) {
    return tables.findType(Tenancy.check(tenant, "tenant"), name);
  }

  /** The tenant's event types by name. */
  public List<EventType> types(String tenant) {
    return tables.listTypes(Tenancy.check(tenant, "tenant"));
  }

  /** Deletes an event type and the subscriptions to it; false if there was none. */
  public boolean deleteType(String tenant, String name) {
    return tables.deleteType(Tenancy.check(tenant, "tenant"), name);
  }

  // ------------------------------------------------------------------------------------ endpoints

  /**
   * Creates or replaces an endpoint and its definition. Every event type it names (but {@value
   * EventEndpoint#ALL_TYPES}) must exist; an http endpoint without a signing secret gets a new one.
   *
   * @throws InvalidInputException naming the field: an unknown event type, a bad filter, or what the
   *     channel refuses of the delivery (target, options)
   */
  public EventEndpoint saveEndpoint(EventEndpoint endpoint) {
    for (String type : endpoint.eventTypes()) {
      if (!type.equals(EventEndpoint.ALL_TYPES) && tables.findType(endpoint.tenant(), type).isEmpty()) {
        throw new InvalidInputException("eventTypes", "no event type '" + type + "'"
            + (endpoint.tenant().equals(Tenancy.DEFAULT) ? "" : " in tenant " + endpoint.tenant())
            + "; create it first");
      }
    }
    NoticeDefinition delivery = endpoint.delivery();
    if (delivery.channel().equals("http") && delivery.option(EventEndpoint.SECRETS, null) == null) {
      delivery = delivery.toBuilder().option(EventEndpoint.SECRETS, newSecret()).build();
    }
    boolean existed = definitions.find(delivery.name()).isPresent();
    definitions.save(delivery);
    Instant now = Instant.ofEpochMilli(clock.millis());
    Instant created;
    try {
      created = tables.saveEndpoint(endpoint, now);
    } catch (RuntimeException e) {
      if (!existed) {
        try {
          definitions.delete(delivery.name());
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    filters.remove(endpoint.tenant() + "/" + endpoint.id());
    return new EventEndpoint(endpoint.tenant(), endpoint.id(), endpoint.description(), endpoint.enabled(),
        endpoint.eventTypes(), endpoint.filter(), delivery, created, now);
  }

  public Optional<EventEndpoint> findEndpoint(String tenant, String id) {
    return tables.findEndpoint(Tenancy.check(tenant, "tenant"), id).flatMap(this::withDelivery);
  }

  /** The tenant's endpoints by id. */
  public List<EventEndpoint> endpoints(String tenant) {
    return tables.endpoints(Tenancy.check(tenant, "tenant"), null).stream()
        .map(this::withDelivery).flatMap(Optional::stream).toList();
  }

  private Optional<EventEndpoint> withDelivery(EventTables.EndpointRow r) {
    Optional<NoticeDefinition> d = definitions.find(r.definition());
    if (d.isEmpty()) {
      log.warn("endpoint {} of tenant {}: its definition {} is missing; it gets no events", r.id(), r.tenant(),
          r.definition());
      return Optional.empty();
    }
    return Optional.of(new EventEndpoint(r.tenant(), r.id(), r.description(), r.enabled(), r.eventTypes(), r.filter(),
        d.get(), r.createdAt(), r.updatedAt()));
  }

  /**
   * Deletes an endpoint and its definition: it gets no more events, and its notices not yet
   * delivered go DEAD when due (disable it first to let them finish). False if there was none.
   */
  public boolean deleteEndpoint(String tenant, String id) {
    String t = Tenancy.check(tenant, "tenant");
    boolean deleted = tables.deleteEndpoint(t, id);
    definitions.delete(Tenancy.endpointDefinition(t, id));
    filters.remove(t + "/" + id);
    return deleted;
  }

  /** Turns an endpoint's new events on or off. */
  public EventEndpoint enable(String tenant, String id, boolean enabled) {
    EventEndpoint e = requireEndpoint(tenant, id);
    return saveEndpoint(e.toBuilder().enabled(enabled).build());
  }

  /**
   * Gives an http endpoint a new signing secret, kept first; the newest previous one stays, so that
   * every request carries both signatures until the receiver has the new one ({@link
   * #dropOldSecrets}). Returns the new secret.
   */
  public String rotateSecret(String tenant, String id) {
    EventEndpoint e = requireEndpoint(tenant, id);
    String fresh = newSecret();
    List<String> keep = e.secrets().isEmpty() ? List.of() : List.of(e.secrets().getFirst());
    List<String> all = new ArrayList<>(List.of(fresh));
    all.addAll(keep);
    saveEndpoint(withSecrets(e, all));
    return fresh;
  }

  /** Keeps only an endpoint's newest signing secret. */
  public EventEndpoint dropOldSecrets(String tenant, String id) {
    EventEndpoint e = requireEndpoint(tenant, id);
    return e.secrets().size() <= 1 ? e : saveEndpoint(withSecrets(e, List.of(e.secrets().getFirst())));
  }

  private static EventEndpoint withSecrets(EventEndpoint e, List<String> secrets) {
    NoticeDefinition d = e.delivery().toBuilder().option(EventEndpoint.SECRETS, String.join(" ", secrets)).build();
    return new EventEndpoint(e.tenant(), e.id(), e.description(), e.enabled(), e.eventTypes(), e.filter(), d, null, null);
  }

  private EventEndpoint requireEndpoint(String tenant, String id) {
    return findEndpoint(tenant, id).orElseThrow(() -> new InvalidInputException("endpoint", "no endpoint '" + id + "'"));
  }

  /** A new Standard Webhooks secret: {@code whsec_} and 32 random bytes in base64. */
  public String newSecret() {
    byte[] key = new byte[32];
    random.nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }

  // ------------------------------------------------------------------------------------ publishing

  /** Publishes in a transaction of Herald's own; delivered right after its commit. */
  public PublishedEvent publish(EventRequest request) {
    return ownTransactions.inTransaction(tx -> publish(tx, request));
  }

  /**
   * Publishes in the caller's transaction (see {@link NoticeTransaction#publish}): the event, one
   * notice per matching endpoint and their links are written with {@code tx}'s connection, and
   * delivered only if it commits.
   *
   * @throws InvalidInputException naming the field: unknown type, a payload its schema refuses (with
   *     the path inside it, e.g. {@code payload.order.total}), a key too long; nothing is written
   */
  public PublishedEvent publish(NoticeTransaction tx, EventRequest r) {
    String tenant = check(r);
    Connection c = tx.connection();
    try {
      EventTables.TypeAndSubscribers read = tables.typeAndSubscribers(c, tenant, r.type()).orElseThrow(() ->
          new InvalidInputException("type", "no event type '" + r.type() + "'"
              + (tenant.equals(Tenancy.DEFAULT) ? "" : " in tenant " + tenant)));
      EventType type = read.type();
      Object payload = JsonTree.parse(r.payload(), "payload");
      JsonSchema schema = schemaOf(type);
      if (schema != null) {
        schema.validate(payload, "payload");
      }
      List<EventTables.Subscriber> matching = new ArrayList<>();
      List<NoticeDefinition> deliveries = new ArrayList<>();
      for (EventTables.Subscriber s : read.subscribers()) {
        Optional<NoticeDefinition> d = definitions.find(s.definition());
        if (d.isEmpty()) {
          log.warn("endpoint {} of tenant {}: its definition {} is missing; it gets no events", s.id(), tenant,
              s.definition());
          continue;
        }
        PayloadFilter f = filterOf(tenant, s);
        if (f == null || f.matches(payload)) {
          matching.add(s);
          deliveries.add(d.get());
        }
      }
      Event event = new Event(Ids.next(clock), tenant, type.name(), r.payload(), r.idempotencyKey(),
          Instant.ofEpochMilli(clock.millis()), matching.size(), false);
      if (!tables.insertEvent(c, event)) {
        Event first = tables.eventByKey(c, tenant, r.idempotencyKey()).orElseThrow(() -> new StoreException(
            "idempotency key " + r.idempotencyKey() + " of tenant " + tenant + " vanished while being read", null));
        return new PublishedEvent(first, tables.deliveries(c, List.of(first.id())).getOrDefault(first.id(), List.of()),
            false);
      }
      List<NoticeRequest> requests = new ArrayList<>(matching.size());
      for (int i = 0; i < matching.size(); i++) {
        NoticeRequest n = NoticeRequest.of(deliveries.get(i).name(), r.payload())
            .description(DESCRIPTION + type.name() + " " + event.id())
            .traceparent(r.traceparent());
        if (r.fireAt() != null) {
          n = n.fireAt(r.fireAt());
        }
        if (r.orderingKey() != null && deliveries.get(i).ordering().ordered()) {
          n = n.orderingKey(scopedOrderingKey(deliveries.get(i).name(), r.orderingKey()));
        }
        requests.add(n);
      }
      List<Notice> notices = requests.isEmpty() ? List.of() : tx.enqueueAll(requests);
      tables.insertDeliveries(c, event.id(), matching.stream().map(EventTables.Subscriber::id).toList(),
          notices.stream().map(Notice::id).toList());
      List<EventDelivery> out = new ArrayList<>(notices.size());
      for (int i = 0; i < notices.size(); i++) {
        Notice n = notices.get(i);
        out.add(new EventDelivery(matching.get(i).id(), n.id(), n.status(), 0, null, null));
      }
      return new PublishedEvent(event, out, true);
    } catch (SQLException e) {
      throw new StoreException("cannot publish event " + r.type() + ": " + e.getMessage(), e);
    }
  }

  /** Checks the request's own fields; returns its tenant. */
  private String check(EventRequest r) {
    if (r == null) {
      throw new InvalidInputException("event", "must not be null");
    }
    String tenant = Tenancy.check(r.tenant(), "tenant");
    if (r.type() == null || r.type().isBlank()) {
      throw new InvalidInputException("type", "must not be blank");
    }
    if (r.payload() == null) {
      throw new InvalidInputException("payload", "must not be null");
    }
    if ((long) r.payload().length() * 3 > maxPayloadBytes) {
      int bytes = r.payload().getBytes(StandardCharsets.UTF_8).length;
      if (bytes > maxPayloadBytes) {
        throw new InvalidInputException("payload", "is " + bytes + " bytes; the limit is " + maxPayloadBytes);
      }
    }
    if (r.idempotencyKey() != null && (r.idempotencyKey().isBlank() || r.idempotencyKey().length() > MAX_KEY)) {
      throw new InvalidInputException("idempotencyKey", "must be 1 to " + MAX_KEY + " characters");
    }
    if (r.orderingKey() != null && (r.orderingKey().isBlank() || r.orderingKey().length() > MAX_ORDERING_KEY)) {
      throw new InvalidInputException("orderingKey", "must be 1 to " + MAX_ORDERING_KEY + " characters");
    }
    return tenant;
  }

  /**
   * An event's ordering key as its notice to one endpoint carries it: ordering keys are global, so
   * each endpoint gets a line of its own (one endpoint's failing head never holds back another's).
   */
  static String scopedOrderingKey(String definition, String key) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(definition.getBytes(StandardCharsets.UTF_8));
      return key + "\u001e" + HexFormat.of().formatHex(hash, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private JsonSchema schemaOf(EventType type) {
    if (type.schema() == null) {
      return null;
    }
    String key = type.tenant() + "/" + type.name();
    long version = type.updatedAt().toEpochMilli();
    Compiled<JsonSchema> c = schemas.get(key);
    if (c == null || c.updatedAt() != version || !c.value().text().equals(type.schema())) {
      c = new Compiled<>(version, JsonSchema.parse(type.schema(), "schema"));
      if (schemas.size() > CACHE_LIMIT) {
        schemas.clear();
      }
      schemas.put(key, c);
    }
    return c.value();
  }

  private PayloadFilter filterOf(String tenant, EventTables.Subscriber s) {
    if (s.filter() == null) {
      return null;
    }
    String key = tenant + "/" + s.id();
    Compiled<PayloadFilter> c = filters.get(key);
    if (c == null || c.updatedAt() != s.updatedAt() || !c.value().text().equals(s.filter())) {
      c = new Compiled<>(s.updatedAt(), PayloadFilter.parse(s.filter(), "filter"));
      if (filters.size() > CACHE_LIMIT) {
        filters.clear();
      }
      filters.put(key, c);
    }
    return c.value();
  }

  // ------------------------------------------------------------------------------------ reading events

  /** An event and its deliveries as they stand now. */
  public Optional<PublishedEvent> find(String tenant, UUID id) {
    String t = Tenancy.check(tenant, "tenant");
    return tables.findEvent(id).filter(e -> e.tenant().equals(t))
        .map(e -> new PublishedEvent(e, tables.deliveries(List.of(id)).getOrDefault(id, List.of()), true));
  }

  /** The event of a tenant's idempotency key, with its deliveries. */
  public Optional<PublishedEvent> findByKey(String tenant, String key) {
    String t = Tenancy.check(tenant, "tenant");
    return tables.findEventByKey(t, key)
        .map(e -> new PublishedEvent(e, tables.deliveries(List.of(e.id())).getOrDefault(e.id(), List.of()), true));
  }

  /** What a notice of an event says it is: {@code event <type> <event id>}. */
  static final String DESCRIPTION = "event ";

  /**
   * The event a notice was the delivery of, if it was one: named in the notice's description (as
   * the publish wrote it), and checked against the event's deliveries.
   */
  public Optional<UUID> eventOf(dev.herald.Notice notice) {
    String d = notice.description();
    if (d == null || !d.startsWith(DESCRIPTION)) {
      return Optional.empty();
    }
    UUID id;
    try {
      id = UUID.fromString(d.substring(d.lastIndexOf(' ') + 1));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    return tables.isDeliveryOf(id, notice.id()) ? Optional.of(id) : Optional.empty();
  }

  /**
   * A tenant's events, newest first, with their deliveries.
   *
   * @param type only this type; null for all
   * @param from created at or after; null for no bound
   * @param to created before; null for no bound
   */
  public Page<PublishedEvent> list(String tenant, String type, Instant from, Instant to, int offset, int limit) {
    if (offset < 0) {
      throw new InvalidInputException("offset", "must be >= 0, was " + offset);
    }
    if (limit < 1 || limit > 1000) {
      throw new InvalidInputException("limit", "must be between 1 and 1000, was " + limit);
    }
    List<Event> found = tables.listEvents(Tenancy.check(tenant, "tenant"), type, from, to, offset, limit);
    boolean more = found.size() > limit;
    List<Event> page = more ? found.subList(0, limit) : found;
    Map<UUID, List<EventDelivery>> deliveries = tables.deliveries(page.stream().map(Event::id).toList());
    return new Page<>(page.stream().map(e -> new PublishedEvent(e, deliveries.getOrDefault(e.id(), List.of()), true))
        .toList(), offset, limit, more);
  }

  /**
   * Replaces a tenant's event's payload by JSON {@code null} (marked expunged) and returns the notices
   * of its deliveries, to be expunged as well ({@code herald.history().expungeEvent} does both).
   *
   * @throws InvalidInputException naming {@code id} when the tenant has no such event
   */
  public List<UUID> expungePayload(String tenant, UUID id) {
    if (find(tenant, id).isEmpty()) {
      throw new InvalidInputException("id", "no event " + id);
    }
    tables.expunge(id);
    return tables.noticesOf(id);
  }

  /** Deletes events older than {@code before} whose notices have all left the live table; returns how many. */
  public int purge(Instant before) {
    int total = 0;
    int n;
    do {
      n = tables.purge(before, 1_000);
      total += n;
    } while (n == 1_000);
    return total;
  }

  EventTables tables() {
    return tables;
  }
}
