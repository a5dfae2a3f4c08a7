package dev.herald.engine;

import dev.herald.NoticeDefinition;
import dev.herald.spi.NoticeRow;
import java.util.UUID;

/** A notice this node has leased and holds in memory until it is due and delivered. */
final class HeldNotice {
  final NoticeRow row;
  final NoticeDefinition definition;
  final long dueMillis;
  /** Renewed by the heartbeat; a notice whose lease has run out is not delivered. */
  volatile long leaseUntilMillis;

  HeldNotice(NoticeRow row, NoticeDefinition definition) {
    this.row = row;
    this.definition = definition;
    this.dueMillis = row.notice().nextAttemptAt().toEpochMilli();
    this.leaseUntilMillis = row.leaseUntil().toEpochMilli();
  }

  UUID id() {
    return row.id();
  }
}
