package dev.herald;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs delivery failures, so that they show without a listener of one's own: a WARN line for each
 * notice that goes DEAD (definition, id, attempts, the last error's first line) and, at DEBUG, each
 * failed attempt with its full detail (a handler's stack trace included). Logger: {@value #LOGGER}.
 */
final class FailureLog implements HeraldListener {
  static final String LOGGER = "dev.herald.delivery";
  private static final Logger log = LoggerFactory.getLogger(LOGGER);

  @Override
  public void onAttempt(Notice notice, Attempt attempt) {
    DeliveryResult.Outcome outcome = attempt.outcome();
    if ((outcome == DeliveryResult.Outcome.RETRY || outcome == DeliveryResult.Outcome.FAIL) && log.isDebugEnabled()) {
      log.debug("Herald notice {} of '{}': attempt {} failed ({}): {}", notice.id(), notice.definition(),
          attempt.number(), outcome, attempt.detail());
    }
  }

  @Override
  public void onFinished(Notice notice) {
    if (notice.status() == NoticeStatus.DEAD) {
      log.warn("Herald notice {} of '{}' is DEAD after {} attempt(s); last error: {}", notice.id(),
          notice.definition(), notice.attempts(), firstLine(notice.lastError()));
    }
  }

  /** The error's summary: a stack trace, if any, stays in the attempt log. */
  static String firstLine(String text) {
    if (text == null) {
      return "none";
    }
    int end = text.indexOf('\n');
    return end < 0 ? text : text.substring(0, end).stripTrailing();
  }
}
