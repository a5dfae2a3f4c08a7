package dev.herald.server.alerts;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.NoticeStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs an alert that cannot be delivered, with the server's reply (an SMTP server's {@code 550 Invalid
 * Addresses}, a webhook's {@code HTTP 503} and body): at its first failed attempt, every tenth, when it
 * is given up (DEAD), and once delivered after failing. An alert that fails is otherwise only in the
 * attempt log, where nobody looks while the alert is what should have told them.
 */
final class AlertDeliveryLog {
  private static final Logger log = LoggerFactory.getLogger(AlertService.class);
  /** Characters of the reply in a line. */
  static final int REPLY = 500;

  private AlertDeliveryLog() {}

  static void failed(Notice n, Attempt a) {
    if (!isAlert(n)) {
      return;
    }
    boolean dead = n.status() == NoticeStatus.DEAD;
    if (a.number() == 1 || a.number() % 10 == 0 || dead) {
      log.warn("Herald alert {} ({}) to {} not delivered at attempt {}{}: {}", n.id(), n.definition(), n.target(),
          a.number(), dead ? ", given up (DEAD)" : ", retried", reply(a.detail()));
    }
  }

  static void delivered(Notice n, Attempt a) {
    if (isAlert(n) && a.number() > 1) {
      log.warn("Herald alert {} ({}) to {} delivered at attempt {}, after failing", n.id(), n.definition(), n.target(),
          a.number());
    }
  }

  private static boolean isAlert(Notice n) {
    return n.definition().equals(AlertService.MAIL_DEFINITION) || n.definition().equals(AlertService.WEBHOOK_DEFINITION);
  }

  /** The reply on one line, cut to {@value #REPLY} characters. */
  static String reply(String detail) {
    if (detail == null) {
      return "no detail";
    }
    String line = detail.strip().replaceAll("\\s*\\R\\s*", " | ");
    return line.length() <= REPLY ? line : line.substring(0, REPLY) + "...";
  }
}
