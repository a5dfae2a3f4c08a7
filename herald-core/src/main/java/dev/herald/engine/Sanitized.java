package dev.herald.engine;

import dev.herald.Attempt;
import dev.herald.Notice;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeRow;

/** A change with its free text (description, error, attempt detail) reduced to short printable ASCII. */
final class Sanitized {
  private static final int MAX = 500;

  private Sanitized() {}

  static Change of(Change c, Throwable refusal) {
    Notice n = c.next().notice();
    String note = " [reduced: the database refused the original text: " + plain(String.valueOf(refusal.getMessage())) + "]";
    Notice safe = n.with().description(plain(c.expected().notice().description()))
        .lastError(n.lastError() == null ? null : plain(n.lastError()) + note).build();
    NoticeRow next = c.next();
    Attempt a = c.attempt();
    Attempt safeAttempt = a == null ? null
        : new Attempt(a.noticeId(), a.number(), a.startedAt(), a.duration(), a.outcome(),
            a.detail() == null ? null : plain(a.detail()) + note, a.node());
    return new Change(c.expected(),
        new NoticeRow(safe, next.owner(), next.leaseUntil(), next.version(), next.retryBase(), next.shard()),
        safeAttempt, c.alert() == null ? null : new dev.herald.PendingAlert(c.alert().id(), c.alert().noticeId(),
            c.alert().definition(), c.alert().endpoint(), c.alert().failures(), c.alert().finalFailure(),
            c.alert().error() == null ? null : plain(c.alert().error()) + note, c.alert().raisedAt()),
        c.ifConfirmed());
  }

  static String plain(String text) {
    if (text == null) {
      return null;
    }
    StringBuilder b = new StringBuilder(Math.min(text.length(), MAX));
    for (int i = 0; i < text.length() && b.length() < MAX; i++) {
      char ch = text.charAt(i);
      b.append(ch >= 0x20 && ch < 0x7f ? ch : '?');
    }
    return b.toString();
  }
}
