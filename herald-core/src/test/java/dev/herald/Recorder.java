package dev.herald;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that remembers every event, for assertions. */
public final class Recorder implements HeraldListener {
  public final List<Attempt> attempts = new CopyOnWriteArrayList<>();
  public final List<Notice> finished = new CopyOnWriteArrayList<>();
  public final List<AlertEvent> alerts = new CopyOnWriteArrayList<>();
  public final List<Notice> stale = new CopyOnWriteArrayList<>();
  public final List<Notice> enqueued = new CopyOnWriteArrayList<>();

  @Override
  public void onEnqueued(Notice notice) {
    enqueued.add(notice);
  }

  @Override
  public void onAttempt(Notice notice, Attempt attempt) {
    attempts.add(attempt);
  }

  @Override
  public void onFinished(Notice notice) {
    finished.add(notice);
  }

  @Override
  public void onAlert(AlertEvent alert) {
    alerts.add(alert);
  }

  @Override
  public void onStaleOutcome(Notice notice, Attempt attempt) {
    stale.add(notice);
  }
}
