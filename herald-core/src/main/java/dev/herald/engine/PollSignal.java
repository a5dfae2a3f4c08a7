package dev.herald.engine;

/** Wakes the poller: a commit, a resend, a freed ordering key or a new incarnation asks it to claim now. */
final class PollSignal {
  private boolean requested;

  synchronized void request() {
    requested = true;
    notifyAll();
  }

  /** Waits up to {@code millis} unless a poll was requested meanwhile; clears the request. */
  synchronized void await(long millis) throws InterruptedException {
    if (!requested && millis > 0) {
      wait(millis);
    }
    requested = false;
  }
}
