package dev.herald.engine;

import dev.herald.spi.NoticeRow;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who held which notice when, at TRACE level under the logger {@code dev.herald.trace}: claims,
 * adoptions, starts and releases with ids, versions and owners, to follow a notice through a
 * randomized run. Off (and free) unless that logger is enabled.
 */
final class Trace {
  private static final Logger log = LoggerFactory.getLogger("dev.herald.trace");

  private Trace() {}

  static boolean on() {
    return log.isTraceEnabled();
  }

  static void log(String format, Object... args) {
    log.trace(format, args);
  }

  static String rows(List<NoticeRow> rows) {
    StringBuilder b = new StringBuilder();
    for (NoticeRow r : rows) {
      b.append(r.id()).append(" v").append(r.version()).append(' ').append(r.owner()).append("; ");
    }
    return b.toString();
  }
}
