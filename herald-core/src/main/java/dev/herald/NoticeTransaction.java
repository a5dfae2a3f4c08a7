package dev.herald;

import dev.herald.engine.DeliveryEngine;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

/**
 * Notices written in a transaction that the caller controls. Enqueue with the caller's connection;
 * after the caller commits, call {@link #afterCommit()} and the notices fire at once from memory;
 * after a rollback, call {@link #afterRollback()}. If neither is called (a crash), committed notices
 * are still delivered: by the next poll, or once their short provisional hold (the node timeout) ends.
 *
 * <p>Not thread-safe: one transaction, one thread, like the connection itself.
 */
public final class NoticeTransaction {
  private final DeliveryEngine engine;
  private final Connection connection;
  private final dev.herald.events.Events events;
  private final List<DeliveryEngine.Enqueued> written = new ArrayList<>();
  private final DeliveryEngine.Hold hold;
  private boolean ended;

  NoticeTransaction(DeliveryEngine engine, Connection connection, dev.herald.events.Events events) {
    this(engine, connection, events, DeliveryEngine.Hold.PROVISIONAL);
  }

  /** @param hold {@link DeliveryEngine.Hold#OWN} only for a transaction of Herald's in which nothing else runs */
  NoticeTransaction(DeliveryEngine engine, Connection connection, dev.herald.events.Events events,
      DeliveryEngine.Hold hold) {
    this.engine = engine;
    this.connection = connection;
    this.events = events;
    this.hold = hold;
  }

  /** The caller's connection, for its own statements in the same transaction. */
  public Connection connection() {
    return connection;
  }

  /** Writes a notice in this transaction; delivered only if the transaction commits. */
  public Notice enqueue(NoticeRequest request) {
    return enqueueAll(List.of(request)).getFirst();
  }

  public Notice enqueue(String definition, String payload) {
    return enqueue(NoticeRequest.of(definition, payload));
  }

  /** Writes several notices; if one is invalid, none is written. */
  public List<Notice> enqueueAll(List<NoticeRequest> requests) {
    return enqueueAllResults(requests).stream().map(EnqueueResult::notice).toList();
  }

  /**
   * Writes several notices, as {@link #enqueueAll}, and says for each whether it was created now or
   * existed already under its idempotency key (as the store answered the insert).
   */
  public List<EnqueueResult> enqueueAllResults(List<NoticeRequest> requests) {
    if (ended) {
      throw new IllegalStateException("this notice transaction has ended");
    }
    List<DeliveryEngine.Enqueued> batch = engine.write(connection, requests, hold);
    written.addAll(batch);
    return batch.stream().map(e -> new EnqueueResult(e.notice(), e.created())).toList();
  }

  /**
   * Publishes an event in this transaction: the event and one notice for each endpoint subscribed
   * to its type (and whose filter its payload passes), delivered only if the transaction commits.
   * If the event is refused (unknown type, a payload its schema refuses), nothing is written.
   */
  public dev.herald.events.PublishedEvent publish(dev.herald.events.EventRequest event) {
    if (ended) {
      throw new IllegalStateException("this notice transaction has ended");
    }
    return events.publish(this, event);
  }

  /** Publishes an event of the default tenant carrying {@code payload}. */
  public dev.herald.events.PublishedEvent publish(String eventType, String payload) {
    return publish(dev.herald.events.EventRequest.of(eventType, payload));
  }

  /**
   * Tells Herald the transaction committed: its notices are delivered now (or at their fire time).
   * Never throws: what cannot be fired from memory is delivered by the poll.
   */
  public void afterCommit() {
    if (!ended) {
      ended = true;
      engine.committed(written);
    }
  }

  /** Tells Herald the transaction rolled back: none of its notices will ever be delivered. */
  public void afterRollback() {
    if (!ended) {
      ended = true;
      engine.rolledBack(written);
    }
  }
}
