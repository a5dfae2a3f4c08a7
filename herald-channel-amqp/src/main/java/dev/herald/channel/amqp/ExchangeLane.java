package dev.herald.channel.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.herald.DeliveryResult;
import dev.herald.spi.Completions;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One exchange's confirm-mode channel on a broker's connection, with its messages in flight: many
 * are published before the first is confirmed, and each confirm ({@code multiple} or not, in any
 * order) settles exactly the messages it names, so a message slow to be confirmed holds up nothing
 * but itself. Messages offered meanwhile wait in a queue that one task drains, publishing them one
 * after another on the channel (no thread per message).
 *
 * <p>A channel error (RabbitMQ closes the channel with {@code 404} for a publish to an exchange that
 * does not exist, {@code 403} for one the user may not write to) is about this exchange: it fails
 * only what was in flight here, and is remembered for {@code retryDelay} so publishes to the
 * exchange fail at once, naming it, instead of opening channel after channel.
 */
final class ExchangeLane {
  /** A message to publish, then awaiting its confirm; settled exactly once. */
  static final class Pending {
    final CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
    final AmqpTarget target;
    final AMQP.BasicProperties props;
    final byte[] body;
    final String publishId;
    final Duration timeout;
    final String what;
    private final AtomicBoolean settled = new AtomicBoolean();
    /** When the confirm is due; set when published. */
    volatile long deadlineNanos;
    volatile String returned;
    volatile int returnCode;

    Pending(AmqpTarget target, AMQP.BasicProperties props, byte[] body, String publishId, Duration timeout) {
      this.target = target;
      this.props = props;
      this.body = body;
      this.publishId = publishId;
      this.timeout = timeout;
      this.what = target.toString();
    }
  }

  /**
   * One channel and what awaits its confirms: sequence numbers start again on every channel, so a
   * channel's confirms and its loss concern only its own messages.
   */
  private static final class Open {
    final Channel channel;
    final ConcurrentNavigableMap<Long, Pending> pending = new ConcurrentSkipListMap<>();
    /** Messages published but not yet confirmed, by publish id, to match a basic.return to them. */
    final Map<String, Pending> byPublishId = new ConcurrentHashMap<>();

    Open(Channel channel) {
      this.channel = channel;
    }
  }

  private static final long RETURN_GRACE_MILLIS = 100;

  private final BrokerPublisher broker;
  private final String exchange;
  private final Duration retryDelay;
  private final int maxInFlight;
  private final Executor executor;
  private final Completions completions;
  private final ScheduledExecutorService timer;
  private final Clock clock;
  /** Held while publishing and while changing the channel. */
  private final ReentrantLock lock = new ReentrantLock();
  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean draining = new AtomicBoolean();
  /** Messages queued or awaiting a confirm here. */
  private final AtomicInteger inFlight = new AtomicInteger();

  /** The channel open now; changed under the lock. */
  private volatile Open open;
  private volatile boolean retired;
  private volatile long lastUsedMillis;
  private volatile String refusal;
  private volatile long refusedAtMillis;

  ExchangeLane(BrokerPublisher broker, String exchange, Duration retryDelay, int maxInFlight, Executor executor,
      Completions completions, ScheduledExecutorService timer, Clock clock) {
    this.broker = broker;
    this.exchange = exchange;
    this.retryDelay = retryDelay;
    this.maxInFlight = maxInFlight;
    this.executor = executor;
    this.completions = completions;
    this.timer = timer;
    this.clock = clock;
    this.lastUsedMillis = clock.millis();
  }

  /**
   * Takes {@code p} to be published soon; false, touching nothing, if this exchange has its limit of
   * messages in flight. Called under the broker's lane lock, so a lane found idle there stays idle.
   */
  boolean offer(Pending p) {
    if (inFlight.incrementAndGet() > maxInFlight) {
      inFlight.decrementAndGet();
      return false;
    }
    lastUsedMillis = clock.millis();
    queue.add(p);
    if (draining.compareAndSet(false, true)) {
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException closing) {
        draining.set(false);
        failQueued("AMQP channel closed");
      }
    }
    return true;
  }

  private void drain() {
    do {
      lock.lock();
      try {
        publishQueued();
      } catch (RuntimeException e) { // never leave messages queued with nobody to publish them
        failQueued("broker '" + broker.name() + "': publish failed: " + BrokerPublisher.describe(e));
      } finally {
        lock.unlock();
      }
      draining.set(false);
      // a message offered after the last poll and before the flag fell found it set: publish it now
    } while (!queue.isEmpty() && draining.compareAndSet(false, true));
  }

  /** Publishes every queued message, opening the channel (and connection) first if needed. Under the lock. */
  private void publishQueued() {
    while (!queue.isEmpty()) {
      if (retired) {
        failQueued("AMQP channel closed");
        return;
      }
      String refused = refusal;
      if (refused != null && clock.millis() - refusedAtMillis < retryDelay.toMillis()) {
        failQueued(refused + "; nothing published (trying the exchange again at most every " + retryDelay + ")");
        return;
      }
      BrokerPublisher.Link link = broker.connection();
      if (link.down() != null) {
        failQueued(link.down());
        return;
      }
      String down = ensureOpen(link.connection());
      if (down != null) {
        failQueued(down);
        return;
      }
      Open on = open;
      Pending p;
      while ((p = queue.poll()) != null) {
        if (!publish(on, p)) {
          break; // the channel is gone: open another for the rest
        }
      }
    }
  }

  /** Publishes one message on {@code on}; false if its channel is closed now. */
  private boolean publish(Open on, Pending p) {
    long seq = on.channel.getNextPublishSeqNo();
    p.deadlineNanos = System.nanoTime() + p.timeout.toNanos();
    on.pending.put(seq, p);
    on.byPublishId.put(p.publishId, p);
    try {
      on.channel.basicPublish(p.target.exchange(), p.target.routingKey(), true, p.props, p.body);
      return true;
    } catch (IOException | RuntimeException e) {
      if (on.pending.remove(seq, p)) {
        settle(on, p, DeliveryResult.retry("broker '" + broker.name() + "': publish failed: "
            + BrokerPublisher.describe(e)));
      }
      return on.channel.isOpen();
    }
  }

  /**
   * Opens this lane's channel if needed, checking that the exchange exists (a passive declare, so
   * a missing one is told before anything is published); returns why it cannot, or null. Under the lock.
   */
  private String ensureOpen(Connection connection) {
    if (open != null && open.channel.isOpen()) {
      return null;
    }
    open = null;
    Channel ch = null;
    try {
      ch = connection.createChannel();
      if (ch == null) {
        return "broker '" + broker.name() + "' has no channel left on its connection (channel-max reached)";
      }
      if (!exchange.isEmpty()) { // the default exchange cannot be declared, not even passively
        ch.exchangeDeclarePassive(exchange);
      }
      ch.confirmSelect();
      Open o = new Open(ch);
      ch.addConfirmListener(new ConfirmListener() {
        @Override
        public void handleAck(long tag, boolean multiple) {
          confirmed(o, tag, multiple, true);
        }

        @Override
        public void handleNack(long tag, boolean multiple) {
          confirmed(o, tag, multiple, false);
        }
      });
      ch.addReturnListener((ReturnListener) (code, text, exch, key, props, body) -> {
        Pending p = props.getHeaders() == null ? null
            : o.byPublishId.get(props.getMessageId() + "/" + props.getHeaders().get(AmqpChannel.HEADER_ATTEMPT));
        if (p != null) {
          p.returnCode = code;
          p.returned = code + " " + text;
        }
      });
      ch.addShutdownListener(cause -> lost(o, cause));
      open = o;
      return null;
    } catch (IOException | RuntimeException e) {
      ShutdownSignalException closedBy = shutdownCause(e);
      if (closedBy != null && !closedBy.isHardError()) {
        return refused(closedBy) + "; nothing published";
      }
      if (ch != null && ch.isOpen()) {
        try {
          ch.abort();
        } catch (IOException | RuntimeException ignored) {
          // it is being dropped either way
        }
      }
      return "broker '" + broker.name() + "': cannot open a channel for " + name() + ": " + BrokerPublisher.describe(e);
    }
  }

  /** Remembers a channel error as this exchange's, and says it. */
  private String refused(ShutdownSignalException cause) {
    String why = cause.getReason() instanceof AMQP.Channel.Close close && close.getReplyCode() == AMQP.NOT_FOUND
        ? name() + " does not exist on broker '" + broker.name() + "' (" + BrokerPublisher.describe(cause) + ")"
        : "broker '" + broker.name() + "' refused " + name() + " (" + BrokerPublisher.describe(cause) + ")";
    refusal = why;
    refusedAtMillis = clock.millis();
    return why;
  }

  private String name() {
    return exchange.isEmpty() ? "the default exchange" : "exchange '" + exchange + "'";
  }

  private static ShutdownSignalException shutdownCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ShutdownSignalException s) {
        return s;
      }
    }
    return null;
  }

  /** A basic.ack or basic.nack: settles the message it names, or with {@code multiple} every one up to it. */
  private void confirmed(Open o, long tag, boolean multiple, boolean ack) {
    if (!multiple) {
      Pending p = o.pending.remove(tag);
      if (p != null) {
        answered(o, p, ack);
      }
      return;
    }
    Map.Entry<Long, Pending> first;
    while ((first = o.pending.firstEntry()) != null && first.getKey() <= tag) {
      if (o.pending.remove(first.getKey(), first.getValue())) {
        answered(o, first.getValue(), ack);
      }
    }
  }

  private void answered(Open o, Pending p, boolean ack) {
    if (ack || p.returned != null) {
      settle(o, p, outcome(p, ack));
      return;
    }
    // RabbitMQ sends basic.return before the ack of an unroutable message; Qpid sends a nack and
    // the return after it: wait a moment for a return before calling it a plain refusal
    try {
      timer.schedule(() -> settle(o, p, outcome(p, false)), RETURN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      settle(o, p, outcome(p, false));
    }
  }

  private DeliveryResult outcome(Pending p, boolean ack) {
    String b = broker.name();
    if (p.returned != null && p.returnCode != AMQP.NO_ROUTE) { // a full queue (Qpid: 506) may take it later
      return DeliveryResult.retry("broker '" + b + "' returned " + p.what + ": " + p.returned);
    }
    if (p.returned != null) {
      return DeliveryResult.fail("unroutable: broker '" + b + "' has no queue for " + p.what
          + " (returned " + p.returned + "); bind a queue or fix the target");
    }
    return ack ? DeliveryResult.delivered("broker '" + b + "' confirmed " + p.what)
        : DeliveryResult.retry("broker '" + b + "' refused " + p.what + " (basic.nack)");
  }

  /** Retries every message whose confirm is overdue (the broker may still have it: at least once). */
  void sweep(long nowNanos) {
    Open o = open;
    if (o == null) {
      return;
    }
    for (Map.Entry<Long, Pending> e : o.pending.entrySet()) {
      Pending p = e.getValue();
      if (nowNanos - p.deadlineNanos >= 0 && o.pending.remove(e.getKey(), p)) {
        settle(o, p, DeliveryResult.retry("broker '" + broker.name() + "' did not confirm " + p.what + " within "
            + p.timeout + " (it may still have it; sent again on retry)"));
      }
    }
  }

  /** The channel is gone: what awaited its confirm is retried, told why. */
  private void lost(Open o, ShutdownSignalException cause) {
    String why;
    if (cause.isInitiatedByApplication()) {
      why = "AMQP channel closed";
    } else if (cause.isHardError()) {
      why = "connection lost before the confirm (" + BrokerPublisher.describe(cause) + ")";
    } else {
      why = refused(cause) + "; its channel closed before the confirm";
    }
    for (Long seq : o.pending.keySet().toArray(Long[]::new)) {
      Pending p = o.pending.remove(seq);
      if (p != null) {
        settle(o, p, DeliveryResult.retry("broker '" + broker.name() + "': " + p.what + ": " + why + "; sent again on retry"));
      }
    }
  }

  /** Fails every message not yet published. */
  private void failQueued(String why) {
    Pending p;
    while ((p = queue.poll()) != null) {
      settle(null, p, DeliveryResult.retry(why));
    }
  }

  /** The one way a message leaves this lane: its room is given back and its result handed over. */
  private void settle(Open o, Pending p, DeliveryResult r) {
    if (!p.settled.compareAndSet(false, true)) {
      return;
    }
    if (o != null) {
      o.byPublishId.remove(p.publishId, p);
    }
    inFlight.decrementAndGet();
    broker.released();
    completions.complete(p.result, r); // off the connection's thread: what follows is the engine's business
  }

  /** Whether nothing is queued or awaits a confirm here. */
  boolean idle() {
    return inFlight.get() == 0;
  }

  /** Messages queued or awaiting a confirm here. */
  int inFlight() {
    return inFlight.get();
  }

  long lastUsedMillis() {
    return lastUsedMillis;
  }

  /** Closes the channel, on the executor (an RPC); called once the lane is idle and out of the broker's map. */
  void retire() {
    retired = true;
    Runnable close = () -> {
      lock.lock();
      try {
        Open o = open;
        open = null;
        if (o != null && o.channel.isOpen()) {
          o.channel.close();
        }
      } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException e) {
        // already closing
      } finally {
        lock.unlock();
      }
    };
    try {
      executor.execute(close);
    } catch (RejectedExecutionException closing) {
      close.run();
    }
  }
}
