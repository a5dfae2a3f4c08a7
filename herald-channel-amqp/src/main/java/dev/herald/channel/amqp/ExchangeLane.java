package dev.herald.channel.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One exchange's confirm-mode channel on a broker's connection, with the messages awaiting its
 * confirms. A channel error (RabbitMQ closes the channel with {@code 404} for a publish to an
 * exchange that does not exist, {@code 403} for one the user may not write to) is about this
 * exchange: it fails only what awaited a confirm here, and is remembered for {@code retryDelay}
 * so publishes to the exchange fail at once, naming it, instead of opening channel after channel.
 */
final class ExchangeLane {
  /** A message awaiting its confirm. */
  static final class Pending {
    final CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
    final String what;
    volatile String returned;
    volatile int returnCode;

    Pending(String what) {
      this.what = what;
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

  private final String broker;
  private final String exchange;
  private final Duration retryDelay;
  private final Executor executor;
  private final ScheduledExecutorService timer;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();

  /** The channel open now; changed under the lock. */
  private volatile Open open;
  private volatile boolean retired;
  private volatile long lastUsedMillis;
  private volatile String refusal;
  private volatile long refusedAtMillis;

  ExchangeLane(String broker, String exchange, Duration retryDelay, Executor executor, ScheduledExecutorService timer,
      Clock clock) {
    this.broker = broker;
    this.exchange = exchange;
    this.retryDelay = retryDelay;
    this.executor = executor;
    this.timer = timer;
    this.clock = clock;
    this.lastUsedMillis = clock.millis();
  }

  /**
   * Publishes one message with {@code mandatory} set on this lane's channel, opening it on {@code
   * connection} first if needed, and completes {@code p} when the broker has answered. False,
   * touching nothing, if the lane was retired meanwhile (the caller takes the exchange's new lane).
   */
  boolean publish(Connection connection, Pending p, AmqpTarget target, AMQP.BasicProperties props, byte[] body,
      String publishId, Duration confirmTimeout) {
    lock.lock();
    long seq = -1;
    Open on = null;
    try {
      if (retired) {
        return false;
      }
      lastUsedMillis = clock.millis();
      String refused = refusal;
      if (refused != null && clock.millis() - refusedAtMillis < retryDelay.toMillis()) {
        p.result.complete(DeliveryResult.retry(refused + "; nothing published (trying the exchange again at most every "
            + retryDelay + ")"));
        return true;
      }
      String down = ensureOpen(connection);
      if (down != null) {
        p.result.complete(DeliveryResult.retry(down));
        return true;
      }
      on = open;
      seq = on.channel.getNextPublishSeqNo();
      on.pending.put(seq, p);
      on.byPublishId.put(publishId, p);
      on.channel.basicPublish(target.exchange(), target.routingKey(), true, props, body);
    } catch (IOException | RuntimeException e) {
      if (seq >= 0) {
        on.pending.remove(seq);
      }
      p.result.complete(DeliveryResult.retry("broker '" + broker + "': publish failed: " + BrokerPublisher.describe(e)));
      return true;
    } finally {
      lock.unlock();
    }
    long s = seq;
    Open o = on;
    p.result.whenComplete((r, t) -> o.byPublishId.remove(publishId));
    timer.schedule(() -> {
      if (o.pending.remove(s, p)) {
        finish(p, DeliveryResult.retry("broker '" + broker + "' did not confirm " + p.what + " within " + confirmTimeout
            + " (it may still have it; sent again on retry)"));
      }
    }, confirmTimeout.toMillis(), TimeUnit.MILLISECONDS);
    return true;
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
        return "broker '" + broker + "' has no channel left on its connection (channel-max reached)";
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
      return "broker '" + broker + "': cannot open a channel for " + name() + ": " + BrokerPublisher.describe(e);
    }
  }

  /** Remembers a channel error as this exchange's, and says it. */
  private String refused(ShutdownSignalException cause) {
    String why = cause.getReason() instanceof AMQP.Channel.Close close && close.getReplyCode() == AMQP.NOT_FOUND
        ? name() + " does not exist on broker '" + broker + "' (" + BrokerPublisher.describe(cause) + ")"
        : "broker '" + broker + "' refused " + name() + " (" + BrokerPublisher.describe(cause) + ")";
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

  private void confirmed(Open o, long tag, boolean multiple, boolean ack) {
    Map<Long, Pending> done = multiple ? o.pending.headMap(tag, true) : Map.of();
    for (Long seq : multiple ? done.keySet().toArray(Long[]::new) : new Long[] {tag}) {
      Pending p = o.pending.remove(seq);
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
      return DeliveryResult.retry("broker '" + broker + "' returned " + p.what + ": " + p.returned);
    }
    if (p.returned != null) {
      return DeliveryResult.fail("unroutable: broker '" + broker + "' has no queue for " + p.what
          + " (returned " + p.returned + "); bind a queue or fix the target");
    }
    return ack ? DeliveryResult.delivered("broker '" + broker + "' confirmed " + p.what)
        : DeliveryResult.retry("broker '" + broker + "' refused " + p.what + " (basic.nack)");
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
        finish(p, DeliveryResult.retry("broker '" + broker + "': " + p.what + ": " + why + "; sent again on retry"));
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

  /** Whether nothing awaits a confirm here. */
  boolean idle() {
    Open o = open;
    return o == null || o.pending.isEmpty();
  }

  long lastUsedMillis() {
    return lastUsedMillis;
  }

  /** Closes the channel; publishes that raced with this go to the exchange's next lane. */
  void retire() {
    lock.lock();
    try {
      retired = true;
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
  }
}
