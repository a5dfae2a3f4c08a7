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
 */
public final class DefinitionCache implements dev.herald.Definitions {
  private final NoticeStore store;
  private final Clock clock;
  private final ChannelRegistry channels;
  private final Map<String, NoticeDefinition> byName = new ConcurrentHashMap<>();

  DefinitionCache(NoticeStore store, Clock clock, ChannelRegistry channels) {
    this.store = store;
    this.clock = clock;
    this.channels = channels;
  }

  /** Creates or replaces a definition. */
  @Override
  public NoticeDefinition save(NoticeDefinition definition) {
    channels.validate(definition);
    store.saveDefinition(definition, clock.instant());
    byName.put(definition.name(), definition);
    return definition;
  }

  @Override
  public Optional<NoticeDefinition> find(String name) {
    NoticeDefinition cached = byName.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    Optional<NoticeDefinition> stored = store.findDefinition(name);
    stored.ifPresent(d -> byName.put(d.name(), d));
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
  public boolean delete(String name) {
    boolean deleted = store.deleteDefinition(name);
    byName.remove(name);
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

  void reload() {
    Map<String, NoticeDefinition> fresh = new ConcurrentHashMap<>();
    for (NoticeDefinition d : store.listDefinitions()) {
      fresh.put(d.name(), d);
    }
    byName.keySet().retainAll(fresh.keySet());
    byName.putAll(fresh);
  }
}
