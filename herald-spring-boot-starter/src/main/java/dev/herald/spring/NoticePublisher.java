package dev.herald.spring;

import dev.herald.NoticeRequest;
import java.time.Duration;
import java.util.List;

/**
 * What application code injects to publish notices.
 *
 * <p><b>Transactions.</b> Inside an active Spring transaction the notice is written with the
 * transaction's own connection: it commits or rolls back with the business data, and is delivered
 * right after the commit (from memory, without waiting for a poll); after a rollback it never is.
 * Outside a transaction it is stored in a transaction of its own and delivered at once. Nested
 * transactions: a notice published in a {@code PROPAGATION_NESTED} scope that rolls back to its
 * savepoint is gone and never delivered, while the outer transaction's other notices are; one
 * published under {@code PROPAGATION_REQUIRES_NEW} belongs to that inner transaction and is
 * delivered when it commits, whatever the outer transaction does later.
 *
 * <p><b>Payloads.</b> A {@code String} is taken as JSON text as is; any other object is written with
 * the application's Jackson {@code JsonMapper}.
 *
 * <p>Handler exceptions never reach the publisher: they are failed attempts, retried by Herald.
 */
public interface NoticePublisher {

  /** Publishes a notice of {@code definition} carrying {@code payload}, due now. */
  NoticeHandle publish(String definition, Object payload);

  /** Publishes a request built with {@link #request} or {@link NoticeRequest#of}: delayed, keyed, described. */
  NoticeHandle publish(NoticeRequest request);

  /** Publishes several notices at once; if one is invalid, none is written. */
  List<NoticeHandle> publishAll(List<NoticeRequest> requests);

  /**
   * A request of {@code definition} with {@code payload} serialized as above, to refine with {@code
   * .delay(..)}, {@code .fireAt(..)}, {@code .idempotencyKey(..)} or {@code .description(..)}.
   */
  NoticeRequest request(String definition, Object payload);

  /**
   * Sync-first delivery (document 003): stores the notice, delivers it at once and waits at most
   * {@code maxWait} for the receiver. DELIVERED when the receiver took it; DEFERRED, at once, when the
   * receiver is known to be failing or rate-limited (its circuit is open), or after a failed or slow
   * first attempt. A deferred notice is durable and delivered in the background on the definition's
   * schedule. Inside an active transaction nothing can be delivered before the commit: the notice is
   * published transactionally and the call returns DEFERRED.
   */
  SyncOutcome publishAndDeliver(String definition, Object payload, Duration maxWait);

  /** {@link #publishAndDeliver(String, Object, Duration)} for a prepared request. */
  SyncOutcome publishAndDeliver(NoticeRequest request, Duration maxWait);

  /**
   * Publishes an event of {@code eventType} (Herald as a webhook platform): one notice for each
   * endpoint subscribed to it, written in the current transaction like {@link #publish} (all of them
   * or none); outside a transaction refused like {@link #publish} unless {@code
   * herald.publisher.require-transaction=false}. The payload is checked against the event
   * type's schema; a refusal names the path that failed, e.g. {@code payload.order.total}.
   */
  dev.herald.events.PublishedEvent publishEvent(String eventType, Object payload);

  /** Publishes an event built with {@link #eventRequest}: keyed, ordered, of a tenant. */
  dev.herald.events.PublishedEvent publishEvent(dev.herald.events.EventRequest event);

  /** An event of {@code eventType} with {@code payload} serialized as above, to refine with {@code .idempotencyKey(..)}. */
  dev.herald.events.EventRequest eventRequest(String eventType, Object payload);
}
