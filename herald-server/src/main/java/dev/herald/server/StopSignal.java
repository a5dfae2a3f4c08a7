package dev.herald.server;

import sun.misc.Signal;

/**
 * SIGTERM is how Kubernetes, Compose and systemd ask a service to stop. The JVM runs its shutdown
 * hooks either way (Spring's graceful shutdown: requests drained, Herald's held notices released),
 * but then exits with 143, which platforms report as a failure. With this handler the same
 * graceful shutdown ends in exit status 0: a requested stop is a normal end.
 */
final class StopSignal {
  private StopSignal() {}

  static void exitZeroOnTerm() {
    if (System.getProperty("os.name", "").startsWith("Windows")) {
      return; // no SIGTERM there
    }
    try {
      Signal.handle(new Signal("TERM"), signal -> System.exit(0));
    } catch (IllegalArgumentException e) { // -Xrs or a platform that keeps the signal to itself
      System.err.println("Herald server: SIGTERM keeps the JVM's handling (exit status 143): " + e.getMessage());
    }
  }
}
