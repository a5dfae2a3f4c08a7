package dev.herald.engine;

import dev.herald.NoticeDefinition;
import dev.herald.UnknownDefinitionException;
import dev.herald.spi.NoticeStore;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Definitions as data: stored, listed and changed through the store; read from memory on the hot
 * path. Reloaded on housekeeping so that changes made by other nodes arrive.
 *
 * <p>The cache never goes back to an older version of a definition: every local change is numbered,
 * and a reload (or a read through to the store) that began before a change of a name leaves that
 * name as the change made it, since what it read may predate the change.
 */
public final class DefinitionCache implements dev.herald.Definitions {
  private final NoticeStore store;
  private final Clock clock;
  private final ChannelRegistry channels;
  private final Map<String, NoticeDefinition> byName = new ConcurrentHashMap<>();
  /** Number of the last local change (save or delete); guarded by {@code this} for writes. */
  private volatile long changes;
  /** Name to the number of its last local change. */
  private final Map<String, Long> changedAt = new ConcurrentHashMap<>();

  DefinitionCache(NoticeStore store, Clock clock, ChannelRegistry channels) {
    this.store = store;
    this.clock = clock;
    this.channels = channels;
  }

  /** Creates or replaces a definition. */
  @Override
  public synchronized NoticeDefinition save(NoticeDefinition definition) {
    channels.validate(definition);
    store.saveDefinition(definition, clock.instant());
    byName.put(definition.name(), definition);
    changedAt.put(definition.name(), ++changes);
    return definition;
  }

  @Override
  public Optional<NoticeDefinition> find(String name) {
    NoticeDefinition cached = byName.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    long before = changes;
    Optional<NoticeDefinition> stored = store.findDefinition(name);
    stored.ifPresent(d -> {
      synchronized (this) {
        if (!changedSince(d.name(), before)) {
          byName.putIfAbsent(d.name(), d);
        }
      }
    });
    return stored;
  }

  /** The definition, or an {@link UnknownDefinitionException} naming {@code field}. */
  public NoticeDefinition require(String name, String field) {
    return find(name).orElseThrow(() -> new UnknownDefinitionException(field, name));
  }

  @Override
  public List<NoticeDefinition> list() {
    return store.listDefinitions();
  }

  /** Deletes a definition; its live notices fail with a clear error when due. */
  @Override
  public synchronized boolean delete(String name) {
    boolean deleted = store.deleteDefinition(name);
    byName.remove(name);
    changedAt.put(name, ++changes);
    return deleted;
  }

  /** Checks that the channel can deliver to {@code target}; errors name {@code field}. */
  void validateTarget(String channel, String target, String field) {
    try {
      channels.validateTarget(channel, target);
    } catch (dev.herald.InvalidInputException e) {
      throw new dev.herald.InvalidInputException(field, e.reason());
    }
  }

  /** Reads every definition again (other nodes' changes arrive), keeping local changes made meanwhile. */
  void reload() {
    long before = changes;
    Map<String, NoticeDefinition> fresh = new java.util.HashMap<>();
    for (NoticeDefinition d : store.listDefinitions()) {
      fresh.put(d.name(), d);
    }
    synchronized (this) {
      byName.keySet().removeIf(name -> !fresh.containsKey(name) && !changedSince(name, before));
      fresh.forEach((name, d) -> {
        if (!changedSince(name, before)) {
          byName.put(name, d);
        }
      });
    }
  }

  private boolean changedSince(String name, long before) {
    Long at = changedAt.get(name);
    return at != null && at > before;
  }
}
