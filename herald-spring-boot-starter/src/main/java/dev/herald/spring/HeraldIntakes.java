package dev.herald.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The intakes configured in properties ({@code herald.amqp.intakes.*}, {@code herald.kafka.intakes.*}):
 * started once Herald runs and stopped before it stops (their phase is just above Herald's). An intake
 * that cannot start (its broker is down) is tried again every {@link #RETRY_EVERY} with a WARN, so the
 * application starts anyway and takes messages once the broker is there.
 */
public class HeraldIntakes implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(HeraldIntakes.class);
  /** How often an intake that could not start is tried again. */
  static final Duration RETRY_EVERY = Duration.ofSeconds(5);

  /** One intake: how to start, stop and ask it. */
  public interface Intake {
    /** How logs and health name it: {@code amqp-<name>} or {@code kafka-<name>}. */
    String name();

    /** Starts consuming; throws if it cannot now. */
    void start() throws Exception;

    /** Whether it consumes now. */
    boolean consuming();

    void close();
  }

  private final List<Intake> intakes;
  private final ScheduledExecutorService retries =
      Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("herald-intake-start").factory());
  private volatile boolean running;

  public HeraldIntakes(List<Intake> intakes) {
    this.intakes = List.copyOf(intakes);
  }

  public List<Intake> intakes() {
    return intakes;
  }

  @Override
  public void start() {
    running = true;
    for (Intake i : intakes) {
      startOrRetry(i, true);
    }
  }

  private void startOrRetry(Intake i, boolean first) {
    if (!running) {
      return;
    }
    try {
      i.start();
      if (!first) {
        log.warn("Herald intake {} started", i.name());
      }
    } catch (Exception e) {
      if (first) {
        log.warn("Herald intake {} cannot start yet ({}); trying again every {}s", i.name(), e.toString(),
            RETRY_EVERY.toSeconds());
      }
      retries.schedule(() -> startOrRetry(i, false), RETRY_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void stop() {
    running = false;
    retries.shutdownNow();
    intakes.forEach(Intake::close);
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Starts after Herald's engine and stops before it, so that no message is taken while it cannot store it. */
  @Override
  public int getPhase() {
    return HeraldLifecycle.PHASE + 1;
  }

  /** An intake from a start action, a consuming check and a close action. */
  static Intake of(String name, ThrowingRunnable start, BooleanSupplier consuming, Runnable close) {
    return new Intake() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void start() throws Exception {
        start.run();
      }

      @Override
      public boolean consuming() {
        return consuming.getAsBoolean();
      }

      @Override
      public void close() {
        close.run();
      }
    };
  }

  /** A start action that may throw. */
  interface ThrowingRunnable {
    void run() throws Exception;
  }
}
