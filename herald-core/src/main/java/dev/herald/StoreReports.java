package dev.herald;

import dev.herald.spi.NoticeStore;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** {@link Herald#reports()}: the store's reads, without the rest of the store. */
final class StoreReports implements NoticeReports {
  private final NoticeStore store;

  StoreReports(NoticeStore store) {
    this.store = store;
  }

  @Override
  public Map<String, NoticeCounts> countByDefinition(Instant now) {
    return store.countByDefinition(now);
  }

  @Override
  public long countDead(Instant since, int cap) {
    return store.countDead(since, cap);
  }

  @Override
  public long countLive(NoticeScope scope) {
    return store.countLive(scope);
  }

  @Override
  public Page<Notice> search(NoticeCriteria criteria, int offset, int limit) {
    return store.search(criteria, offset, limit);
  }

  @Override
  public List<UUID> searchIds(NoticeCriteria criteria, int limit) {
    return store.searchIds(criteria, limit);
  }

  @Override
  public List<UUID> finishedIds(String definition, NoticeStatus status, Instant from, Instant to, NoticeScope scope,
      int limit) {
    return store.finishedIds(definition, status, from, to, scope, limit);
  }

  @Override
  public List<AttemptSample> attemptSamples(Instant from, Instant to, String definition, NoticeScope scope,
      int max) {
    return store.attemptSamples(from, to, definition, scope, max);
  }

  @Override
  public long[] backlogAt(List<Instant> instants, String definition, NoticeScope scope) {
    return store.backlogAt(instants, definition, scope);
  }

  @Override
  public Set<UUID> existing(Collection<UUID> ids) {
    return store.existing(ids);
  }
}
