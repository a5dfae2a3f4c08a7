package dev.herald.spring;

import dev.herald.Herald;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Starts Herald's engine once the application context is refreshed and stops it gracefully when the
 * context closes. Its phase is below the web server's graceful shutdown, so Herald stops after the
 * server and message listeners have drained (they may still publish) and starts before them. Stopping
 * runs in the background within Spring's per-phase shutdown timeout; the engine gives running
 * attempts {@code herald.shutdown-timeout} to finish and releases the notices it held, for other
 * nodes or the next start.
 *
 * <p>With {@code herald.auto-start=false} the engine is not started with the context (a test then
 * drives it with a {@link dev.herald.testing.ManualRunner}); it is still closed with the context.
 *
 * <p>An engine does not restart after it stopped: a stopped context must be refreshed anew.
 */
public class HeraldLifecycle implements SmartLifecycle, DisposableBean {
  /** Below Spring Boot's web server phases ({@code DEFAULT_PHASE - 1024} and {@code - 2048}). */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final Herald herald;
  private final boolean autoStart;
  private final AtomicBoolean closed = new AtomicBoolean();

  public HeraldLifecycle(Herald herald) {
    this(herald, true);
  }

  /** @param autoStart whether the engine starts once the context is refreshed */
  public HeraldLifecycle(Herald herald, boolean autoStart) {
    this.herald = herald;
    this.autoStart = autoStart;
  }

  @Override
  public boolean isAutoStartup() {
    return autoStart;
  }

  @Override
  public void start() {
    if (closed.get()) {
      throw new IllegalStateException("Herald was stopped and cannot start again; refresh a new application context");
    }
    if (!herald.isRunning()) {
      herald.start();
    }
  }

  @Override
  public void stop() {
    close();
  }

  @Override
  public void stop(Runnable callback) {
    Thread.ofPlatform().name("herald-shutdown").start(() -> {
      try {
        close();
      } finally {
        callback.run();
      }
    });
  }

  @Override
  public boolean isRunning() {
    return herald.isRunning();
  }

  /** Whether Herald was stopped (it does not start again). */
  public boolean isStopped() {
    return closed.get();
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** Closes Herald if the lifecycle did not (the context failed before starting it). */
  @Override
  public void destroy() {
    close();
  }

  private void close() {
    if (closed.compareAndSet(false, true)) {
      herald.close();
    }
  }
}
