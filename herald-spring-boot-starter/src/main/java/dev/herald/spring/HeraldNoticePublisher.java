package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.InvalidInputException;
import dev.herald.NoticeRequest;
import dev.herald.SyncDelivery;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link NoticePublisher} over a {@link Herald}; joins Spring transactions on Herald's data source.
 * Outside a transaction it refuses to publish ({@link NoTransactionException}) unless built with
 * {@code requireTransaction} false ({@code herald.publisher.require-transaction=false}).
 */
public class HeraldNoticePublisher implements NoticePublisher {
  private final Herald herald;
  private final SpringTransactionNotices transactions;
  private final Supplier<JsonMapper> jsonMapper;
  private final boolean requireTransaction;
  private final BooleanSupplier stopped;

  /**
   * A publisher that stores notices published outside a transaction in a transaction of their own.
   *
   * @param herald the engine
   * @param dataSource the data source Herald stores notices in, whose Spring transactions notices join
   * @param jsonMapper writes payload objects
   */
  public HeraldNoticePublisher(Herald herald, DataSource dataSource, Supplier<JsonMapper> jsonMapper) {
    this(herald, dataSource, jsonMapper, false, () -> false);
  }

  /**
   * @param requireTransaction whether publishing outside an active Spring transaction is refused
   * @param stopped whether Herald was stopped with the application context: publishing is refused then
   */
  public HeraldNoticePublisher(Herald herald, DataSource dataSource, Supplier<JsonMapper> jsonMapper,
      boolean requireTransaction, BooleanSupplier stopped) {
    this.herald = Objects.requireNonNull(herald, "herald");
    this.transactions = new SpringTransactionNotices(herald, dataSource);
    this.jsonMapper = Objects.requireNonNull(jsonMapper, "jsonMapper");
    this.requireTransaction = requireTransaction;
    this.stopped = Objects.requireNonNull(stopped, "stopped");
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
    refuseWhenStopped(requests);
    if (transactions.inTransaction()) {
      List<dev.herald.Notice> stored = KnownDefinitions.listedOnFailure(herald, () -> transactions.enqueueAll(requests));
      BooleanSupplier uncommitted = transactions.uncommitted();
      return stored.stream().map(n -> new NoticeHandle(herald, n, uncommitted)).toList();
    }
    if (requireTransaction) {
      throw new NoTransactionException(definitions(requests));
    }
    return KnownDefinitions.listedOnFailure(herald, () -> herald.enqueueAll(requests)).stream()
        .map(n -> new NoticeHandle(herald, n)).toList();
  }

  private void refuseWhenStopped(List<NoticeRequest> requests) {
    if (stopped.getAsBoolean()) {
      throw new HeraldException("Herald was stopped with the application context, so the notice of "
          + definitions(requests) + " cannot be stored. Publish before the context closes: work that may still"
          + " publish (web requests, message listeners, scheduled tasks) must end in an earlier shutdown phase"
          + " than Herald's (HeraldLifecycle.PHASE), as Spring Boot's web server and listener containers do.");
    }
  }

  private static String definitions(List<NoticeRequest> requests) {
    return requests.stream().map(r -> "'" + r.definition() + "'").distinct().collect(Collectors.joining(", "));
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
    refuseWhenStopped(List.of(request));
    if (transactions.inTransaction()) {
      NoticeHandle handle = publish(request);
      return new SyncOutcome(SyncOutcome.Status.DEFERRED, handle,
          "published inside a transaction: delivered right after it commits");
    }
    SyncDelivery d = KnownDefinitions.listedOnFailure(herald, () -> herald.deliverNow(request, maxWait));
    SyncOutcome.Status status = d.delivered() ? SyncOutcome.Status.DELIVERED : SyncOutcome.Status.DEFERRED;
    return new SyncOutcome(status, new NoticeHandle(herald, d.notice()), d.reason());
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
