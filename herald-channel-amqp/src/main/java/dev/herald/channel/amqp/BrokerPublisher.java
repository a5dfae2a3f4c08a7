package dev.herald.channel.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.herald.DeliveryResult;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One broker: one connection, one confirm-mode channel, its own limit of messages awaiting a
 * confirm. A broker in trouble (down, blocked by a resource alarm, not confirming) costs only its
 * own deliveries: they are retried or deferred, never queued behind each other, and the engine's
 * other brokers and channels go on.
 *
 * <p>Recovery is lazy: a lost connection fails what awaited a confirm ({@code RETRY}: the broker
 * may or may not have it, and at-least-once resends it) and the next publish connects again, at
 * most once per {@code reconnectDelay}.
 */
final class BrokerPublisher implements AutoCloseable {
  /** A message awaiting its confirm. */
  private static final class Pending {
    final CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
    final String what;
    volatile String returned;
    volatile int returnCode;

    Pending(String what) {
      this.what = what;
    }
  }

  private static final long RETURN_GRACE_MILLIS = 100;

  private final String name;
  private final ConnectionFactory factory;
  private final Duration reconnectDelay;
  private final Duration busyDelay;
  private final Semaphore inFlight;
  private final int maxInFlight;
  private final Executor executor;
  private final ScheduledExecutorService timer;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private final ConcurrentNavigableMap<Long, Pending> pending = new ConcurrentSkipListMap<>();
  /** Messages published but not yet confirmed, by publish id, to match a basic.return to them. */
  private final Map<String, Pending> byPublishId = new ConcurrentHashMap<>();

  private Connection connection;
  private Channel channel;
  private long lastConnectFailure = Long.MIN_VALUE;
  private String lastConnectError;
  private volatile String blockedReason;
  private volatile boolean closed;

  BrokerPublisher(String name, ConnectionFactory factory, Duration reconnectDelay, Duration busyDelay, int maxInFlight,
      Executor executor, ScheduledExecutorService timer, Clock clock) {
    this.name = name;
    this.factory = factory;
    this.reconnectDelay = reconnectDelay;
    this.busyDelay = busyDelay;
    this.maxInFlight = maxInFlight;
    this.inFlight = new Semaphore(maxInFlight);
    this.executor = executor;
    this.timer = timer;
    this.clock = clock;
  }

  /** Publishes one message with {@code mandatory} set and completes when the broker has answered. */
  CompletableFuture<DeliveryResult> publish(AmqpTarget target, AMQP.BasicProperties props, byte[] body,
      String publishId, Duration confirmTimeout) {
    String blocked = blockedReason;
    if (blocked != null) {
      return CompletableFuture.completedFuture(DeliveryResult.defer(busyDelay,
          "broker '" + name + "' blocked its publishers (" + blocked + "); deferred"));
    }
    if (!inFlight.tryAcquire()) {
      return CompletableFuture.completedFuture(DeliveryResult.defer(busyDelay,
          "broker '" + name + "' has its limit of " + maxInFlight + " messages awaiting a confirm; deferred, not queued"));
    }
    Pending p = new Pending(target.toString());
    p.result.whenComplete((r, t) -> inFlight.release());
    try {
      executor.execute(() -> send(p, target, props, body, publishId, confirmTimeout));
    } catch (RuntimeException e) {
      p.result.complete(DeliveryResult.retry("AMQP channel closed"));
    }
    return p.result;
  }

  private void send(Pending p, AmqpTarget target, AMQP.BasicProperties props, byte[] body, String publishId,
      Duration confirmTimeout) {
    lock.lock();
    long seq = -1;
    try {
      String down = ensureOpen();
      if (down != null) {
        p.result.complete(DeliveryResult.retry(down));
        return;
      }
      seq = channel.getNextPublishSeqNo();
      pending.put(seq, p);
      byPublishId.put(publishId, p);
      channel.basicPublish(target.exchange(), target.routingKey(), true, props, body);
    } catch (IOException | RuntimeException e) {
      if (seq >= 0) {
        pending.remove(seq);
      }
      p.result.complete(DeliveryResult.retry("broker '" + name + "': publish failed: " + describe(e)));
    } finally {
      lock.unlock();
    }
    long s = seq;
    p.result.whenComplete((r, t) -> byPublishId.remove(publishId));
    timer.schedule(() -> {
      if (pending.remove(s, p)) {
        finish(p, DeliveryResult.retry("broker '" + name + "' did not confirm " + p.what + " within " + confirmTimeout
            + " (it may still have it; sent again on retry)"));
      }
    }, confirmTimeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Opens the connection if needed; returns why it cannot, or null. Called under the lock. */
  private String ensureOpen() {
    if (closed) {
      return "AMQP channel closed";
    }
    if (channel != null && channel.isOpen()) {
      return null;
    }
    long now = clock.millis();
    if (lastConnectFailure != Long.MIN_VALUE && now - lastConnectFailure < reconnectDelay.toMillis()) {
      return "broker '" + name + "' unreachable: " + lastConnectError + " (connecting again at most every "
          + reconnectDelay + ")";
    }
    closeQuietly();
    try {
      Connection c = factory.newConnection("herald-" + name);
      Channel ch = c.createChannel();
      ch.confirmSelect();
      ch.addConfirmListener(new ConfirmListener() {
        @Override
        public void handleAck(long tag, boolean multiple) {
          confirmed(tag, multiple, true);
        }

        @Override
        public void handleNack(long tag, boolean multiple) {
          confirmed(tag, multiple, false);
        }
      });
      ch.addReturnListener((ReturnListener) (code, text, exchange, key, props, body) -> {
        Pending p = props.getHeaders() == null ? null
            : byPublishId.get(props.getMessageId() + "/" + props.getHeaders().get(AmqpChannel.HEADER_ATTEMPT));
        if (p != null) {
          p.returnCode = code;
          p.returned = code + " " + text;
        }
      });
      c.addShutdownListener(cause -> lost(cause));
      ch.addShutdownListener(cause -> lost(cause)); // e.g. 404 for an exchange that does not exist
      c.addBlockedListener(new BlockedListener() {
        @Override
        public void handleBlocked(String reason) {
          blockedReason = reason;
        }

        @Override
        public void handleUnblocked() {
          blockedReason = null;
        }
      });
      connection = c;
      channel = ch;
      lastConnectFailure = Long.MIN_VALUE;
      return null;
    } catch (IOException | TimeoutException | RuntimeException e) {
      lastConnectFailure = now;
      lastConnectError = describe(e);
      return "broker '" + name + "' unreachable: " + lastConnectError;
    }
  }

  private void confirmed(long tag, boolean multiple, boolean ack) {
    Map<Long, Pending> done = multiple ? pending.headMap(tag, true) : Map.of();
    for (Long seq : multiple ? done.keySet().toArray(Long[]::new) : new Long[] {tag}) {
      Pending p = pending.remove(seq);
      if (p == null) {
        continue;
      }
      if (ack || p.returned != null) {
        finish(p, outcome(p, ack));
      } else {
        // RabbitMQ sends basic.return before the ack of an unroutable message; Qpid sends a nack
        // and the return after it: wait a moment for a return before calling it a plain refusal
        timer.schedule(() -> finish(p, outcome(p, false)), RETURN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
      }
    }
  }

  private DeliveryResult outcome(Pending p, boolean ack) {
    if (p.returned != null && p.returnCode != AMQP.NO_ROUTE) { // a full queue (Qpid: 506) may take it later
      return DeliveryResult.retry("broker '" + name + "' returned " + p.what + ": " + p.returned);
    }
    if (p.returned != null) {
      return DeliveryResult.fail("unroutable: broker '" + name + "' has no queue for " + p.what
          + " (returned " + p.returned + "); bind a queue or fix the target");
    }
    return ack ? DeliveryResult.delivered("broker '" + name + "' confirmed " + p.what)
        : DeliveryResult.retry("broker '" + name + "' refused " + p.what + " (basic.nack)");
  }

  private void lost(ShutdownSignalException cause) {
    blockedReason = null;
    String why = cause.isInitiatedByApplication() && closed ? "AMQP channel closed" : describe(cause);
    for (Long seq : pending.keySet().toArray(Long[]::new)) {
      Pending p = pending.remove(seq);
      if (p != null) {
        finish(p, DeliveryResult.retry("broker '" + name + "': connection lost before the confirm of " + p.what
            + " (" + why + "); sent again on retry"));
      }
    }
  }

  private void finish(Pending p, DeliveryResult r) {
    // off the connection's thread: what follows the result is the engine's business
    try {
      executor.execute(() -> p.result.complete(r));
    } catch (RuntimeException e) {
      p.result.complete(r);
    }
  }

  /** Whether the connection is open now. */
  boolean connected() {
    Channel ch = channel;
    return ch != null && ch.isOpen();
  }

  private void closeQuietly() {
    Connection c = connection;
    connection = null;
    channel = null;
    if (c != null && c.isOpen()) {
      try {
        c.close(1000);
      } catch (IOException | RuntimeException e) {
        // already going
      }
    }
  }

  static String describe(Throwable e) {
    if (e instanceof ShutdownSignalException s && s.getReason() != null) {
      return s.getReason().protocolMethodName() + " " + s.getMessage();
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    return root == e ? m : m + " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
  }

  @Override
  public void close() {
    closed = true;
    lock.lock();
    try {
      closeQuietly();
    } finally {
      lock.unlock();
    }
  }
}
