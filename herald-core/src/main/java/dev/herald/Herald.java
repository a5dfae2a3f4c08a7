package dev.herald;

import dev.herald.channel.local.LocalChannel;
import dev.herald.engine.DeliveryEngine;
import dev.herald.spi.Channel;
import dev.herald.spi.NoticeStore;
import dev.herald.store.jdbc.JdbcNoticeStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;

/**
 * Herald: reliable notices and delayed callbacks. Build one per application with {@link
 * #builder()}, {@link #start()} it, and {@link #close()} it on the way out.
 *
 * <pre>{@code
 * Herald herald = Herald.builder()
 *     .h2File(Path.of("data/herald"))
 *     .define(NoticeDefinition.builder("order-paid").handler("notify-merchant").retry("5s, 5m, 1h").build())
 *     .handler("notify-merchant", ctx -> DeliveryResult.delivered())
 *     .build()
 *     .start();
 * herald.inTransaction(tx -> {
 *   // ... business writes with tx.connection() ...
 *   return tx.enqueue("order-paid", "{\"order\":42}");
 * });
 * }</pre>
 */
public final class Herald implements AutoCloseable {
  private final DeliveryEngine engine;
  private final DataSource dataSource;
  private final Clock clock;
  private final AutoCloseable ownedPool;
  private final Alerts alerts;
  private final dev.herald.events.Events events;
  private final dev.herald.recurring.Recurring recurring;
  private final NoticeHistory history;
  private final RecurringPoller recurringPoller;
  private final NoticeReports reports;
  private final List<Channel> channels;

  private Herald(DeliveryEngine engine, DataSource dataSource, Clock clock, AutoCloseable ownedPool,
      NoticeStore store, dev.herald.store.jdbc.Dialect dialect, List<Channel> channels) {
    this.channels = List.copyOf(channels);
    this.engine = engine;
    this.dataSource = dataSource;
    this.clock = clock;
    this.ownedPool = ownedPool;
    this.alerts = new Alerts(this, store);
    this.events = new dev.herald.events.Events(dataSource, dialect, engine.definitions(), clock,
        engine.settings().maxPayloadBytes(), this::inTransaction);
    this.recurring = new dev.herald.recurring.Recurring(dataSource, dialect, engine.definitions(), clock,
        this::inTransaction);
    this.recurringPoller = new RecurringPoller(recurring, engine.settings().pollInterval());
    this.history = new NoticeHistory(engine.operations(), events, dataSource, dialect);
    this.reports = new StoreReports(store);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts claiming and delivering. Returns this, for chaining. */
  public Herald start() {
    engine.start();
    recurringPoller.start();
    return this;
  }

  public boolean isRunning() {
    return engine.isRunning();
  }

  /** Stops gracefully (see {@link EngineSettings#shutdownTimeout()}) and closes the pool Herald opened. */
  @Override
  public void close() {
    recurringPoller.close();
    engine.close();
    if (ownedPool != null) {
      try {
        ownedPool.close();
      } catch (Exception e) {
        throw new HeraldException("cannot close Herald's connection pool", e);
      }
    }
  }

  /** Stored definitions. */
  public Definitions definitions() {
    return engine.definitions();
  }

  /** The alert outbox: alerts raised by definitions' alert policies, waiting to be sent. */
  public Alerts alerts() {
    return alerts;
  }

  /**
   * Event types, the endpoints subscribed to them, and publishing an event as one notice per
   * subscribed endpoint (Herald as a webhook platform).
   */
  public dev.herald.events.Events events() {
    return events;
  }

  /**
   * Recurring notices: schedules (a cron expression in a time zone, or a fixed rate) that make one
   * notice per slot, exactly once across all nodes.
   */
  public dev.herald.recurring.Recurring recurring() {
    return recurring;
  }

  /**
   * Replay (a definition's notices of a time range, sent again) and expunge (a finished notice's
   * payload and attempt details removed, its ids, times and outcomes kept).
   */
  public NoticeHistory history() {
    return history;
  }

  /** What gauges, health checks and consoles read: counts, searches, chart series. */
  public NoticeReports reports() {
    return reports;
  }

  /** What operators do: search, detail, resend, cancel, confirm, recover. */
  public NoticeOperations operations() {
    return engine.operations();
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public Clock clock() {
    return clock;
  }

  public EngineSettings settings() {
    return engine.settings();
  }

  /** Whether {@link #deliverNow} currently delivers inline to this definition's receiver. */
  public ReceiverState receiverState(String definition) {
    return engine.circuitState(definition);
  }

  /**
   * The channels this node delivers through ({@code local} first), e.g. to read the state of what
   * they talk to ({@link Channel#peers()}) for health checks, metrics and the console.
   */
  public List<Channel> channels() {
    return channels;
  }

  /** This node's in-memory counts (held, waiting for a slot, delivering, circuits), for metrics. */
  public EngineStats stats() {
    return engine.stats();
  }

  // ---------------------------------------------------------------- enqueue

  /** Enqueues in a transaction of Herald's own and commits it; the notice is due at its fire time. */
  public Notice enqueue(NoticeRequest request) {
    return enqueueAll(List.of(request)).getFirst();
  }

  public Notice enqueue(String definition, String payload) {
    return enqueue(NoticeRequest.of(definition, payload));
  }

  /** Enqueues several notices in one transaction; if one is invalid, none is written. */
  public List<Notice> enqueueAll(List<NoticeRequest> requests) {
    // Nothing but these inserts runs in this transaction: what commits is what the engine was told,
    // so the notices due soon are held from the insert on, with no adoption after the commit.
    return inTransactionWithoutSavepoints(tx -> tx.enqueueAll(requests));
  }

  /**
   * Writes a notice with the caller's connection, inside the caller's transaction, and does not
   * commit. If the caller rolls back, it is never delivered; if it commits, the next poll delivers
   * it (at most {@link EngineSettings#pollInterval()} later). To have it delivered right after the
   * commit instead, use {@link #inTransaction} or {@link #join}.
   */
  public Notice enqueue(Connection connection, NoticeRequest request) {
    return engine.write(connection, List.of(request), DeliveryEngine.Hold.NONE).getFirst().notice();
  }

  /** Joins a transaction the caller controls; see {@link NoticeTransaction}. */
  public NoticeTransaction join(Connection connection) {
    return new NoticeTransaction(engine, connection, events);
  }

  /**
   * Runs {@code work} in one transaction on a connection from Herald's data source: the caller's
   * business writes (through {@code tx.connection()}) and its notices commit together. After the
   * commit the notices fire at once; if {@code work} throws, everything rolls back and the
   * exception is rethrown (checked ones wrapped in {@link HeraldException}).
   */
  public <T> T inTransaction(TransactionWork<T> work) {
    return TransactionRunner.run(dataSource, this::join, work);
  }

  /**
   * Runs {@code work} as {@link #inTransaction} does, for work that never rolls back to a savepoint
   * (each of its statements succeeds, or it throws and everything rolls back). Its notices due soon
   * are then held by this node from their insert on, and fire after the commit without the round
   * trip {@code inTransaction} makes to learn which of them a rollback to a savepoint removed. A
   * rollback to a savepoint inside such work could deliver a notice that was never committed: use
   * {@code inTransaction} for work that may do one.
   */
  public <T> T inTransactionWithoutSavepoints(TransactionWork<T> work) {
    return TransactionRunner.run(dataSource, c -> new NoticeTransaction(engine, c, events, DeliveryEngine.Hold.OWN),
        work);
  }

  /**
   * Stores the notice and delivers it at once, waiting at most {@code maxWait} for the first
   * attempt (document 003's sync-first delivery). When the receiver is known to be failing or
   * rate-limiting (its circuit is open), returns DEFERRED at once without trying. A deferred notice is
   * durable and delivered in the background on the definition's schedule.
   */
  public SyncDelivery deliverNow(NoticeRequest request, Duration maxWait) {
    return engine.deliverNow(this::enqueue, request, maxWait);
  }

  /**
   * Completes with the notice as recorded after its next attempt on this node, or at once if it
   * already had an attempt or finished. Use {@code orTimeout} or {@code get(timeout)} to bound the wait.
   */
  public java.util.concurrent.CompletableFuture<Notice> outcomeOf(java.util.UUID noticeId) {
    return engine.outcomeOf(noticeId);
  }

  /**
   * Runs, on the calling thread, one attempt of every notice due by the clock's current time and
   * records the outcomes, after firing the recurring schedules due ({@link #recurring()}). For tests
   * (with a settable clock) and tools; only on a Herald that was not started. Returns the number of
   * attempts.
   */
  public int runDue() {
    recurring.fireDue();
    return engine.runDue();
  }

  /** Purges finished notices older than the history retention now; returns how many. */
  public int purgeHistory() {
    return engine.purgeHistoryNow();
  }

  /**
   * Configures a Herald: its database, definitions, handlers, channels and listeners here, the engine
   * settings in {@link EngineTuning}. Every setting has a default; {@link #build()} names the first bad one.
   */
  public static final class Builder extends EngineTuning {
    private DataSource dataSource;
    private Path h2File;
    private String jdbcUrl;
    private String jdbcUser;
    private String jdbcPassword;
    private java.util.function.Consumer<com.zaxxer.hikari.HikariConfig> poolTuning = config -> {};
    private Clock clock = Clock.systemUTC();
    private RandomGenerator random = new Random();
    private NoticeStore store;
    private final List<NoticeDefinition> definitions = new ArrayList<>();
    private final Map<String, NoticeHandler> handlers = new LinkedHashMap<>();
    private final List<Channel> channels = new ArrayList<>();
    private final List<HeraldListener> listeners = new ArrayList<>();
    private final List<dev.herald.spi.OptionOwner> optionOwners = new ArrayList<>();

    private Builder() {}

    /** The database to use: the application's own, so that notices join its transactions. */
    public Builder dataSource(DataSource ds) {
      this.dataSource = ds;
      return this;
    }

    /**
     * A server database (PostgreSQL, MySQL, MariaDB, or H2 in server mode) by JDBC URL: Herald opens
     * a HikariCP pool of its own, and closes it on {@link Herald#close()}. The driver must be on the
     * class path. While the database is unreachable, enqueueing fails with a {@link StoreException}
     * after the pool's connection timeout (5 s unless {@link #pool tuned}), and the engine backs off
     * and resumes when the database returns.
     */
    public Builder jdbc(String url, String user, String password) {
      this.jdbcUrl = url;
      this.jdbcUser = user;
      this.jdbcPassword = password;
      return this;
    }

    /** Tunes the pool that {@link #jdbc} opens (size, timeouts, connection init SQL, driver properties). */
    public Builder pool(java.util.function.Consumer<com.zaxxer.hikari.HikariConfig> tuning) {
      this.poolTuning = tuning;
      return this;
    }

    /** The embedded default: an H2 database in files at {@code path} (created if missing). */
    public Builder h2File(Path path) {
      this.h2File = path;
      return this;
    }

    public Builder clock(Clock c) {
      this.clock = c;
      return this;
    }

    /** Source of retry jitter; seed it in tests. */
    public Builder random(RandomGenerator r) {
      this.random = r;
      return this;
    }

    /** Replaces the JDBC store (a custom {@link NoticeStore}); the data source still serves transactions. */
    public Builder store(NoticeStore s) {
      this.store = s;
      return this;
    }

    /** A definition saved (created or replaced) at build time. */
    public Builder define(NoticeDefinition definition) {
      definitions.add(definition);
      return this;
    }

    /** An in-process handler, bound by name to definitions with {@code .handler(name)}. */
    public Builder handler(String name, NoticeHandler handler) {
      if (name == null || name.isBlank()) {
        throw new InvalidInputException("handler", "name must not be blank");
      }
      if (handlers.putIfAbsent(name, handler) != null) {
        throw new InvalidInputException("handler", "two handlers named '" + name + "'");
      }
      return this;
    }

    /** The names of the handlers registered so far (for integrations that check their bindings). */
    public java.util.Set<String> handlerNames() {
      return java.util.Set.copyOf(handlers.keySet());
    }

    public Builder channel(Channel channel) {
      channels.add(channel);
      return this;
    }

    /** A part besides the channels that reads definition options (a server's {@code alert.*}): see {@link dev.herald.spi.OptionOwner}. */
    public Builder optionOwner(dev.herald.spi.OptionOwner owner) {
      optionOwners.add(owner);
      return this;
    }

    public Builder listener(HeraldListener listener) {
      listeners.add(listener);
      return this;
    }

    /** Validates the settings, migrates the schema and saves the declared definitions. Not started yet. */
    public Herald build() {
      // The embedded H2 file admits one process at a time, so its node id can be stable: a restart
      // then takes back what it held at once.
      String defaultNode = dataSource == null && jdbcUrl == null ? "embedded" : OwnedDatabase.defaultNodeId();
      EngineSettings settings = engineSettings(defaultNode);
      OwnedDatabase db = OwnedDatabase.open(dataSource, h2File, jdbcUrl, jdbcUser, jdbcPassword, poolTuning);
      AutoCloseable pool = db.pool();
      DataSource ds = db.dataSource();
      try {
        NoticeStore s = store != null ? store : JdbcNoticeStore.create(ds, clock);
        s.migrate();
        List<Channel> all = new ArrayList<>(channels);
        if (channels.stream().noneMatch(c -> c.name().equals(LocalChannel.NAME))) {
          all.addFirst(new LocalChannel(handlers));
        } else if (!handlers.isEmpty()) {
          throw new InvalidInputException("handler", "handlers need the built-in local channel, but another channel is named 'local'");
        }
        List<HeraldListener> observers = new ArrayList<>(listeners);
        observers.addFirst(new FailureLog()); // failures show in the log without a listener of one's own
        DeliveryEngine engine = new DeliveryEngine(settings, s, clock, all, observers, random,
            tracing(), optionOwners);
        for (NoticeDefinition d : definitions) {
          engine.definitions().save(d);
        }
        dev.herald.store.jdbc.Dialect dialect = s instanceof JdbcNoticeStore jdbc ? jdbc.dialect()
            : dev.herald.store.jdbc.Dialect.detect(ds);
        return new Herald(engine, ds, clock, pool, s, dialect, all);
      } catch (RuntimeException e) {
        if (pool != null) {
          try {
            pool.close();
          } catch (Exception suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        throw e;
      }
    }

    /**
     * An H2 file URL. WRITE_DELAY=0 writes every commit to the file at once, so that a killed
     * process loses no acknowledged notice; DB_CLOSE_ON_EXIT=FALSE lets Herald's own shutdown
     * release its leases before the database closes.
     */
    public static String h2Url(Path file) {
      return OwnedDatabase.h2Url(file);
    }
  }
}
