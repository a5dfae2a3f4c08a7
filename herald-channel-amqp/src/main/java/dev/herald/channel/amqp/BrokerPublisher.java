package dev.herald.channel.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import dev.herald.DeliveryResult;
import dev.herald.health.PeerHealth;
import dev.herald.spi.Completions;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One broker: one connection, one confirm-mode channel per exchange ({@link ExchangeLane}), its own
 * limit of messages in flight (and each exchange its own share of it). A broker in trouble (down,
 * blocked by a resource alarm, not confirming) costs only its own deliveries: they are retried or
 * deferred, never queued behind each other, and the engine's other brokers and channels go on. An
 * exchange in trouble (missing, not writable: the broker closes its channel; slow to confirm) costs
 * only the deliveries to that exchange.
 *
 * <p>Recovery is lazy: a lost connection fails what awaited a confirm ({@code RETRY}: the broker
 * may or may not have it, and at-least-once resends it) and the next publish connects again, at
 * most once per {@code reconnectDelay}.
 */
final class BrokerPublisher implements AutoCloseable {
  /** Most exchanges with a channel of their own per broker; idle ones are closed to make room. */
  static final int MAX_LANES = 64;

  /** The connection, or why there is none. */
  record Link(Connection connection, String down) {}

  private final String name;
  private final ConnectionFactory factory;
  private final Duration reconnectDelay;
  private final Duration busyDelay;
  private final Semaphore inFlight;
  private final int maxInFlight;
  private final int maxInFlightPerExchange;
  private final Executor executor;
  private final Completions completions;
  private final ScheduledExecutorService timer;
  private final Clock clock;
  /** Guards the connection; held while connecting. */
  private final ReentrantLock connecting = new ReentrantLock();
  /** Guards the set of lanes (never held during I/O). */
  private final ReentrantLock lanesLock = new ReentrantLock();
  private final Map<String, ExchangeLane> lanes = new HashMap<>();
  private final PeerHealth health;

  private volatile Connection connection;
  private long lastConnectFailure = Long.MIN_VALUE;
  private String lastConnectError;
  private volatile String blockedReason;
  private volatile boolean closed;

  BrokerPublisher(String name, ConnectionFactory factory, Duration reconnectDelay, Duration busyDelay, int maxInFlight,
      int maxInFlightPerExchange, Executor executor, Completions completions, ScheduledExecutorService timer,
      Clock clock, PeerHealth health) {
    this.name = name;
    this.health = health;
    this.factory = factory;
    this.reconnectDelay = reconnectDelay;
    this.busyDelay = busyDelay;
    this.maxInFlight = maxInFlight;
    this.maxInFlightPerExchange = maxInFlightPerExchange;
    this.inFlight = new Semaphore(maxInFlight);
    this.executor = executor;
    this.completions = completions;
    this.timer = timer;
    this.clock = clock;
  }

  String name() {
    return name;
  }

  /**
   * Publishes one message with {@code mandatory} set and completes when the broker has answered (or
   * at once, deferred, when the broker or the exchange has its limit of messages in flight). Never
   * blocks: the exchange's lane publishes it on a task of its own.
   */
  CompletableFuture<DeliveryResult> publish(AmqpTarget target, AMQP.BasicProperties props, byte[] body,
      String publishId, Duration confirmTimeout) {
    String blocked = blockedReason;
    if (blocked != null) {
      return CompletableFuture.completedFuture(DeliveryResult.defer(busyDelay,
          "broker '" + name + "' blocked its publishers (" + blocked + "); deferred"));
    }
    if (closed) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("AMQP channel closed"));
    }
    if (!inFlight.tryAcquire()) {
      return CompletableFuture.completedFuture(DeliveryResult.defer(busyDelay,
          "broker '" + name + "' has its limit of " + maxInFlight + " messages awaiting a confirm; deferred, not queued"));
    }
    ExchangeLane.Pending p = new ExchangeLane.Pending(target, props, body, publishId, confirmTimeout);
    lanesLock.lock();
    try {
      ExchangeLane lane = lane(target.exchange());
      if (lane == null) {
        inFlight.release();
        return CompletableFuture.completedFuture(DeliveryResult.defer(busyDelay, "broker '" + name + "' has "
            + MAX_LANES + " exchanges with messages awaiting a confirm; deferred, not queued"));
      }
      if (!lane.offer(p)) {
        inFlight.release();
        return CompletableFuture.completedFuture(DeliveryResult.defer(busyDelay, "broker '" + name + "' has its limit of "
            + maxInFlightPerExchange + " messages awaiting a confirm for exchange '" + target.exchange()
            + "'; deferred, not queued"));
      }
    } finally {
      lanesLock.unlock();
    }
    return p.result;
  }

  /** A message left a lane (settled): its room is free again. */
  void released() {
    inFlight.release();
  }

  /** The exchange's lane, making room by retiring the least recently used idle one; null if none is idle. Under the lanes lock. */
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
      idlest.getValue().retire(); // idle under this lock, and out of the map: nothing more reaches it
    }
    lane = new ExchangeLane(this, exchange, reconnectDelay, maxInFlightPerExchange, executor, completions, timer, clock);
    lanes.put(exchange, lane);
    return lane;
  }

  /** The open connection, connecting first if needed (at most once per {@code reconnectDelay}). */
  Link connection() {
    Connection c = connection;
    if (c != null && c.isOpen() && !closed) {
      return new Link(c, null);
    }
    connecting.lock();
    try {
      String down = ensureConnected();
      if (down != null) {
        health.failed(name, down);
      }
      return new Link(connection, down);
    } finally {
      connecting.unlock();
    }
  }

  /** Opens the connection if needed; returns why it cannot, or null. Under the connecting lock. */
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

  /** Retries what has waited too long for its confirm, on every lane. */
  void sweep(long nowNanos) {
    ExchangeLane[] all;
    lanesLock.lock();
    try {
      all = lanes.values().toArray(ExchangeLane[]::new);
    } finally {
      lanesLock.unlock();
    }
    for (ExchangeLane lane : all) {
      lane.sweep(nowNanos);
    }
  }

  /**
   * Connects if not connected, so that a broker that nobody publishes to is still known to be up or
   * down (and a broker back after an outage is seen back without waiting for traffic).
   */
  void probe() {
    connecting.lock();
    try {
      String down = ensureConnected();
      if (down != null) {
        health.unreachable(name, down);
      }
    } finally {
      connecting.unlock();
    }
  }

  /** How many exchanges have a lane now (at most {@link #MAX_LANES}). */
  int lanes() {
    lanesLock.lock();
    try {
      return lanes.size();
    } finally {
      lanesLock.unlock();
    }
  }

  /** Messages queued or awaiting a confirm on this broker now. */
  int inFlight() {
    return maxInFlight - inFlight.availablePermits();
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
    connecting.lock();
    try {
      closeQuietly();
    } finally {
      connecting.unlock();
    }
  }
}
