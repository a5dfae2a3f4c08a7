package dev.herald.events;

import dev.herald.Definitions;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeTransaction;
import dev.herald.Page;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
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

  private final EventTypeTable types;
  private final EndpointTable endpoints;
  private final EventTables tables;
  private final Publisher publisher;
  private final Definitions definitions;
  private final Clock clock;
  private final OwnTransactions ownTransactions;
  private final SecureRandom random = new SecureRandom();

  /** Runs work in a transaction of Herald's own ({@link dev.herald.Herald#inTransaction}). */
  @FunctionalInterface
  public interface OwnTransactions {
    <T> T inTransaction(dev.herald.TransactionWork<T> work);
  }

  /** Built by {@link dev.herald.Herald}; reach it with {@code herald.events()}. */
  public Events(javax.sql.DataSource dataSource, dev.herald.store.jdbc.Dialect dialect, Definitions definitions,
      Clock clock, int maxPayloadBytes, OwnTransactions ownTransactions) {
    this.types = new EventTypeTable(dataSource, dialect);
    this.endpoints = new EndpointTable(dataSource, dialect);
    this.tables = new EventTables(dataSource, dialect);
    this.publisher = new Publisher(endpoints, tables, definitions, clock, maxPayloadBytes);
    this.definitions = definitions;
    this.clock = clock;
    this.ownTransactions = ownTransactions;
  }

  // ------------------------------------------------------------------------------------ event types

  /** Creates or replaces an event type (its schema applies to events published from now on). */
  public EventType saveType(EventType type) {
    EventType saved = types.saveType(type, Instant.ofEpochMilli(clock.millis()));
    publisher.schemas.forget(type.tenant() + "/" + type.name());
    return saved;
  }

  public Optional<EventType> findType(String tenant, String name) {
    return types.findType(Tenancy.check(tenant, "tenant"), name);
  }

  /** The tenant's event types by name. */
  public List<EventType> types(String tenant) {
    return types.listTypes(Tenancy.check(tenant, "tenant"));
  }

  /** Deletes an event type and the subscriptions to it; false if there was none. */
  public boolean deleteType(String tenant, String name) {
    return types.deleteType(Tenancy.check(tenant, "tenant"), name);
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
      if (!type.equals(EventEndpoint.ALL_TYPES) && types.findType(endpoint.tenant(), type).isEmpty()) {
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
      created = endpoints.saveEndpoint(endpoint, now);
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
    publisher.filters.forget(endpoint.tenant() + "/" + endpoint.id());
    return new EventEndpoint(endpoint.tenant(), endpoint.id(), endpoint.description(), endpoint.enabled(),
        endpoint.eventTypes(), endpoint.filter(), delivery, created, now);
  }

  public Optional<EventEndpoint> findEndpoint(String tenant, String id) {
    return endpoints.findEndpoint(Tenancy.check(tenant, "tenant"), id).flatMap(this::withDelivery);
  }

  /** The tenant's endpoints by id. */
  public List<EventEndpoint> endpoints(String tenant) {
    return endpoints.endpoints(Tenancy.check(tenant, "tenant"), null).stream()
        .map(this::withDelivery).flatMap(Optional::stream).toList();
  }

  private Optional<EventEndpoint> withDelivery(EndpointTable.EndpointRow r) {
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
    boolean deleted = endpoints.deleteEndpoint(t, id);
    definitions.delete(Tenancy.endpointDefinition(t, id));
    publisher.filters.forget(t + "/" + id);
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
    return publisher.publish(tx, r);
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
}
