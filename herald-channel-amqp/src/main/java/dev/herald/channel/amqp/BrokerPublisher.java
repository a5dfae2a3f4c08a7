package dev.herald.channel.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import dev.herald.DeliveryResult;
import dev.herald.health.PeerHealth;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One broker: one connection, one confirm-mode channel per exchange ({@link ExchangeLane}), its own
 * limit of messages awaiting a confirm. A broker in trouble (down, blocked by a resource alarm, not
 * confirming) costs only its own deliveries: they are retried or deferred, never queued behind
 * each other, and the engine's other brokers and channels go on. An exchange in trouble (missing,
 * not writable: the broker closes its channel) costs only the deliveries to that exchange.
 *
 * <p>Recovery is lazy: a lost connection fails what awaited a confirm ({@code RETRY}: the broker
 * may or may not have it, and at-least-once resends it) and the next publish connects again, at
 * most once per {@code reconnectDelay}.
 */
final class BrokerPublisher implements AutoCloseable {
  /** Most exchanges with a channel of their own per broker; idle ones are closed to make room. */
  static final int MAX_LANES = 64;

  private final String name;
  private final ConnectionFactory factory;
  private final Duration reconnectDelay;
  private final Duration busyDelay;
  private final Semaphore inFlight;
  private final int maxInFlight;
  private final Executor executor;
  private final ScheduledExecutorService timer;
  private final Clock clock;
  private final PeerHealth health;
  /** Guards the connection and the set of lanes. */
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, ExchangeLane> lanes = new ConcurrentHashMap<>();

  private Connection connection;
  private long lastConnectFailure = Long.MIN_VALUE;
  private String lastConnectError;
  private volatile String blockedReason;
  private volatile boolean closed;

  BrokerPublisher(String name, ConnectionFactory factory, Duration reconnectDelay, Duration busyDelay, int maxInFlight,
      Executor executor, ScheduledExecutorService timer, Clock clock, PeerHealth health) {
    this.name = name;
    this.health = health;
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
    ExchangeLane.Pending p = new ExchangeLane.Pending(target.toString());
    p.result.whenComplete((r, t) -> inFlight.release());
    try {
      executor.execute(() -> send(p, target, props, body, publishId, confirmTimeout));
    } catch (RuntimeException e) {
      p.result.complete(DeliveryResult.retry("AMQP channel closed"));
    }
    return p.result;
  }

  private void send(ExchangeLane.Pending p, AmqpTarget target, AMQP.BasicProperties props, byte[] body,
      String publishId, Duration confirmTimeout) {
    while (true) {
      Connection c;
      ExchangeLane lane;
      lock.lock();
      try {
        String down = ensureConnected();
        if (down != null) {
          health.failed(name, down);
          p.result.complete(DeliveryResult.retry(down));
          return;
        }
        c = connection;
        lane = lane(target.exchange());
      } finally {
        lock.unlock();
      }
      if (lane == null) {
        p.result.complete(DeliveryResult.defer(busyDelay, "broker '" + name + "' has " + MAX_LANES
            + " exchanges with messages awaiting a confirm; deferred, not queued"));
        return;
      }
      if (lane.publish(c, p, target, props, body, publishId, confirmTimeout)) {
        return;
      } // retired meanwhile: take the exchange's new lane
    }
  }

  /** The exchange's lane, making room by closing the least recently used idle one; null if none is idle. Under the lock. */
  private ExchangeLane lane(String exchange) {
    ExchangeLane lane = lanes.get(exchange);
    if (lane != null) {
      return lane;
    }
    if (lanes.size() >= MAX_LANES) {
      Map.Entry<String, ExchangeLane> idlest = lanes.entrySet().stream().filter(e -> e.getValue().idle())
          .min(Comparator.comparingLong(e -> e.getValue().lastUsedMillis())).orElse(null);
      if (idlest == null) {
        return null;
      }
      lanes.remove(idlest.getKey());
      idlest.getValue().retire();
    }
    lane = new ExchangeLane(name, exchange, reconnectDelay, executor, timer, clock);
    lanes.put(exchange, lane);
    return lane;
  }

  /** Opens the connection if needed; returns why it cannot, or null. Under the lock. */
  private String ensureConnected() {
    if (closed) {
      return "AMQP channel closed";
    }
    if (connection != null && connection.isOpen()) {
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
      c.addShutdownListener(cause -> {
        blockedReason = null; // each lane fails its own pending confirms
        if (!cause.isInitiatedByApplication()) {
          health.unreachable(name, "connection lost: " + describe(cause));
        }
      });
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
      lastConnectFailure = Long.MIN_VALUE;
      health.succeeded(name);
      return null;
    } catch (IOException | TimeoutException | RuntimeException e) {
      lastConnectFailure = now;
      lastConnectError = describe(e);
      return "broker '" + name + "' unreachable: " + lastConnectError;
    }
  }

  /**
   * Connects if not connected, so that a broker that nobody publishes to is still known to be up or
   * down (and a broker back after an outage is seen back without waiting for traffic).
   */
  void probe() {
    lock.lock();
    try {
      String down = ensureConnected();
      if (down != null) {
        health.unreachable(name, down);
      }
    } finally {
      lock.unlock();
    }
  }

  /** How many exchanges have a lane now (at most {@link #MAX_LANES}). */
  int lanes() {
    return lanes.size();
  }

  /** Whether the connection is open now. */
  boolean connected() {
    Connection c = connection;
    return c != null && c.isOpen();
  }

  private void closeQuietly() {
    Connection c = connection;
    connection = null;
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
