package dev.herald.engine;

import dev.herald.AlertEvent;
import dev.herald.Attempt;
import dev.herald.HeraldListener;
import dev.herald.Notice;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Fans events out to the registered listeners; one listener's exception never stops the others. */
final class Listeners implements HeraldListener {
  private static final Logger log = LoggerFactory.getLogger(Listeners.class);
  private final List<HeraldListener> listeners;

  Listeners(List<HeraldListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  private void each(String event, Consumer<HeraldListener> call) {
    for (HeraldListener l : listeners) {
      try {
        call.accept(l);
      } catch (Throwable e) { // an Error too: a listener must never stop the engine thread that calls it
        log.warn("Herald listener {} failed on {}", l.getClass().getName(), event, e);
      }
    }
  }

  @Override
  public void onEnqueued(Notice notice) {
    each("onEnqueued", l -> l.onEnqueued(notice));
  }

  @Override
  public void onAttempt(Notice notice, Attempt attempt) {
    each("onAttempt", l -> l.onAttempt(notice, attempt));
  }

  @Override
  public void onFinished(Notice notice) {
    each("onFinished", l -> l.onFinished(notice));
  }

  @Override
  public void onAlert(AlertEvent alert) {
    each("onAlert", l -> l.onAlert(alert));
  }

  @Override
  public void onStaleOutcome(Notice notice, Attempt attempt) {
    each("onStaleOutcome", l -> l.onStaleOutcome(notice, attempt));
  }

  @Override
  public void onOutcomesWritten(int outcomes, java.time.Duration commitTime) {
    each("onOutcomesWritten", l -> l.onOutcomesWritten(outcomes, commitTime));
  }

  @Override
  public void onEngineError(String step, Throwable error) {
    each("onEngineError", l -> l.onEngineError(step, error));
  }
}
