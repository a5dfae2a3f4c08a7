package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeRequest;
import dev.herald.SyncDelivery;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import javax.sql.DataSource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** The {@link NoticePublisher} over a {@link Herald}; joins Spring transactions on Herald's data source. */
public class HeraldNoticePublisher implements NoticePublisher {
  private final Herald herald;
  private final SpringTransactionNotices transactions;
  private final Supplier<JsonMapper> jsonMapper;

  /**
   * @param herald the engine
   * @param dataSource the data source Herald stores notices in, whose Spring transactions notices join
   * @param jsonMapper writes payload objects
   */
  public HeraldNoticePublisher(Herald herald, DataSource dataSource, Supplier<JsonMapper> jsonMapper) {
    this.herald = Objects.requireNonNull(herald, "herald");
    this.transactions = new SpringTransactionNotices(herald, dataSource);
    this.jsonMapper = Objects.requireNonNull(jsonMapper, "jsonMapper");
  }

  @Override
  public NoticeHandle publish(String definition, Object payload) {
    return publish(request(definition, payload));
  }

  @Override
  public NoticeHandle publish(NoticeRequest request) {
    return publishAll(List.of(request)).getFirst();
  }

  @Override
  public List<NoticeHandle> publishAll(List<NoticeRequest> requests) {
    List<Notice> stored = KnownDefinitions.listedOnFailure(herald, () -> transactions.inTransaction()
        ? transactions.enqueueAll(requests)
        : herald.enqueueAll(requests));
    return stored.stream().map(n -> new NoticeHandle(herald, n)).toList();
  }

  @Override
  public NoticeRequest request(String definition, Object payload) {
    return NoticeRequest.of(definition, json(payload));
  }

  @Override
  public SyncOutcome publishAndDeliver(String definition, Object payload, Duration maxWait) {
    return publishAndDeliver(request(definition, payload), maxWait);
  }

  @Override
  public SyncOutcome publishAndDeliver(NoticeRequest request, Duration maxWait) {
    if (maxWait == null || maxWait.isNegative()) {
      throw new InvalidInputException("maxWait", "must be zero or positive, was " + maxWait);
    }
    if (transactions.inTransaction()) {
      NoticeHandle handle = publish(request);
      return new SyncOutcome(SyncOutcome.Status.DEFERRED, handle,
          "published inside a transaction: delivered right after it commits");
    }
    SyncDelivery d = KnownDefinitions.listedOnFailure(herald, () -> herald.deliverNow(request, maxWait));
    SyncOutcome.Status status = d.delivered() ? SyncOutcome.Status.DELIVERED : SyncOutcome.Status.DEFERRED;
    return new SyncOutcome(status, new NoticeHandle(herald, d.notice()), d.reason());
  }

  @Override
  public dev.herald.events.PublishedEvent publishEvent(String eventType, Object payload) {
    return publishEvent(eventRequest(eventType, payload));
  }

  @Override
  public dev.herald.events.PublishedEvent publishEvent(dev.herald.events.EventRequest event) {
    return transactions.inTransaction() ? transactions.publish(event) : herald.events().publish(event);
  }

  @Override
  public dev.herald.events.EventRequest eventRequest(String eventType, Object payload) {
    return dev.herald.events.EventRequest.of(eventType, json(payload));
  }

  /** JSON text for a payload: a String as is, anything else written with the JsonMapper. */
  protected String json(Object payload) {
    if (payload == null || payload instanceof String) {
      return (String) payload;
    }
    try {
      return jsonMapper.get().writeValueAsString(payload);
    } catch (JacksonException e) {
      throw new InvalidInputException("payload",
          "cannot write " + payload.getClass().getName() + " as JSON: " + e.getOriginalMessage());
    }
  }

  /** The engine this publisher writes to. */
  public Herald herald() {
    return herald;
  }
}
