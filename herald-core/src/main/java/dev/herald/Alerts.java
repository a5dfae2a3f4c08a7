package dev.herald;

import dev.herald.spi.NoticeStore;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The alert outbox. An alert a definition's {@link AlertPolicy} raises is written in the same
 * transaction as the outcome that raised it; {@link #drain} takes alerts out in the transaction that
 * enqueues what they become. So an alert whose outcome committed is handled exactly once: not lost in
 * a crash, not handled twice by two nodes draining together.
 */
public final class Alerts {
  /** Turns waiting alerts into notices, in the drain's transaction. */
  @FunctionalInterface
  public interface Handler {
    /**
     * Enqueues what the alerts become through {@code tx} (and may write its own tables through
     * {@code tx.connection()}), and returns the alerts it consumed: those are deleted in the same
     * transaction; the others stay for a later drain. If it throws, nothing is consumed or enqueued.
     *
     * @param alerts the oldest waiting alerts, locked against other drains until the transaction ends
     */
    Collection<PendingAlert> handle(List<PendingAlert> alerts, NoticeTransaction tx);
  }

  private final Herald herald;
  private final NoticeStore store;

  Alerts(Herald herald, NoticeStore store) {
    this.herald = herald;
    this.store = store;
  }

  /**
   * In one transaction: locks up to {@code max} waiting alerts, oldest first (alerts another drain
   * holds are skipped on PostgreSQL and MySQL/MariaDB, waited for on H2), hands them to {@code
   * handler}, deletes what it consumed, and commits with the notices it enqueued. If another
   * transaction deleted one of them meanwhile, everything rolls back and a {@link StoreException} is
   * thrown: nothing is sent twice. The handler is not called when no alert waits.
   *
   * @return how many alerts were consumed
   */
  public int drain(int max, Handler handler) {
    if (max < 1) {
      throw new InvalidInputException("max", "must be at least 1, was " + max);
    }
    return herald.inTransaction(tx -> {
      List<PendingAlert> waiting = store.lockAlerts(tx.connection(), max);
      if (waiting.isEmpty()) {
        return 0;
      }
      Collection<PendingAlert> consumed = handler.handle(List.copyOf(waiting), tx);
      Set<UUID> given = new HashSet<>();
      waiting.forEach(a -> given.add(a.id()));
      Set<UUID> taken = new HashSet<>();
      for (PendingAlert a : consumed) {
        if (!given.contains(a.id()) || !taken.add(a.id())) {
          throw new IllegalArgumentException("alert " + a.id() + " was not handed to this drain, or returned twice");
        }
      }
      int deleted = store.deleteAlerts(tx.connection(), consumed);
      if (deleted != consumed.size()) {
        throw new StoreException("another drain took " + (consumed.size() - deleted) + " of these alerts meanwhile;"
            + " rolled back so that none is sent twice", null);
      }
      return deleted;
    });
  }
}
