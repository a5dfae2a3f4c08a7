package dev.herald.events;

import dev.herald.Definitions;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.NoticeTransaction;
import dev.herald.StoreException;
import dev.herald.engine.Ids;
import dev.herald.json.JsonTree;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of {@link Events}: checks an event, reads its type and subscribers, validates the
 * payload against the type's schema, and writes the event, one notice per matching endpoint and
 * their links on the publisher's connection.
 */
final class Publisher {
  private static final Logger log = LoggerFactory.getLogger(Events.class);
  static final int MAX_KEY = 200;

  private final EndpointTable endpoints;
  private final EventTables tables;
  private final Definitions definitions;
  private final Clock clock;
  private final int maxPayloadBytes;
  final CompiledCache<JsonSchema> schemas = new CompiledCache<>();
  final CompiledCache<PayloadFilter> filters = new CompiledCache<>();

  Publisher(EndpointTable endpoints, EventTables tables, Definitions definitions, Clock clock, int maxPayloadBytes) {
    this.endpoints = endpoints;
    this.tables = tables;
    this.definitions = definitions;
    this.clock = clock;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  /**
   * Publishes in the caller's transaction (see {@link NoticeTransaction#publish}): the event, one
   * notice per matching endpoint and their links are written with {@code tx}'s connection, and
   * delivered only if it commits.
   *
   * @throws InvalidInputException naming the field: unknown type, a payload its schema refuses (with
   *     the path inside it, e.g. {@code payload.order.total}), a key too long; nothing is written
   */
  PublishedEvent publish(NoticeTransaction tx, EventRequest r) {
    String tenant = check(r);
    Connection c = tx.connection();
    try {
      EndpointTable.TypeAndSubscribers read = endpoints.typeAndSubscribers(c, tenant, r.type()).orElseThrow(() ->
          new InvalidInputException("type", "no event type '" + r.type() + "'"
              + (tenant.equals(Tenancy.DEFAULT) ? "" : " in tenant " + tenant)));
      EventType type = read.type();
      Object payload = JsonTree.parse(r.payload(), "payload");
      JsonSchema schema = schemaOf(type);
      if (schema != null) {
        schema.validate(payload, "payload");
      }
      List<EndpointTable.Subscriber> matching = new ArrayList<>();
      List<NoticeDefinition> deliveries = new ArrayList<>();
      for (EndpointTable.Subscriber s : read.subscribers()) {
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
            .description(Events.DESCRIPTION + type.name() + " " + event.id())
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
      tables.insertDeliveries(c, event.id(), matching.stream().map(EndpointTable.Subscriber::id).toList(),
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
    if (r.orderingKey() != null && (r.orderingKey().isBlank() || r.orderingKey().length() > Events.MAX_ORDERING_KEY)) {
      throw new InvalidInputException("orderingKey", "must be 1 to " + Events.MAX_ORDERING_KEY + " characters");
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
    return type.schema() == null ? null : schemas.get(type.tenant() + "/" + type.name(),
        type.updatedAt().toEpochMilli(), type.schema(), text -> JsonSchema.parse(text, "schema"));
  }

  private PayloadFilter filterOf(String tenant, EndpointTable.Subscriber s) {
    return s.filter() == null ? null : filters.get(tenant + "/" + s.id(), s.updatedAt(), s.filter(),
        text -> PayloadFilter.parse(text, "filter"));
  }
}
