package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.DeliveryResult;
import dev.herald.NoticeDefinition;
import dev.herald.channel.local.LocalChannel;
import dev.herald.spi.NoticeStore;
import dev.herald.testing.SettableClock;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 20, finding 7: a definition saved while housekeeping's reload was on its way was reverted in
 * that node's cache (the reload read all, then put all, over the newer save) until the next reload,
 * ten minutes later; notices went to the old target after {@code save()} returned.
 */
class DefinitionCacheTest {
  private final Map<String, NoticeDefinition> table = new ConcurrentHashMap<>();
  private final CountDownLatch listed = new CountDownLatch(1);
  private final CountDownLatch mayReturn = new CountDownLatch(1);
  private volatile boolean holdLists;

  /** Definitions in a map; a list can be held on its way back, after it read the table. */
  private NoticeStore store() {
    return (NoticeStore) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {NoticeStore.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "saveDefinition" -> {
            NoticeDefinition d = (NoticeDefinition) args[0];
            table.put(d.name(), d);
            yield null;
          }
          case "deleteDefinition" -> table.remove((String) args[0]) != null;
          case "findDefinition" -> java.util.Optional.ofNullable(table.get((String) args[0]));
          case "listDefinitions" -> {
            List<NoticeDefinition> all = new ArrayList<>(table.values());
            if (holdLists) {
              listed.countDown();
              mayReturn.await(10, TimeUnit.SECONDS);
            }
            yield all;
          }
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  private DefinitionCache cache() {
    return new DefinitionCache(store(), new SettableClock(Instant.parse("2026-01-01T00:00:00Z")),
        new ChannelRegistry(List.of(new LocalChannel(Map.of("h", ctx -> DeliveryResult.delivered()))), List.of()));
  }

  private static NoticeDefinition target(String name, String handler) {
    return NoticeDefinition.builder(name).handler(handler).build();
  }

  @Test
  void aSaveDuringAReloadIsNotRevertedByIt() throws Exception {
    DefinitionCache cache = cache();
    cache.save(target("merchant-paid", "old"));
    holdLists = true;
    CompletableFuture<Void> reload = CompletableFuture.runAsync(cache::reload);
    assertThat(listed.await(10, TimeUnit.SECONDS)).isTrue(); // the reload read the old version
    cache.save(target("merchant-paid", "new"));
    mayReturn.countDown();
    reload.get(10, TimeUnit.SECONDS);
    assertThat(cache.find("merchant-paid").orElseThrow().target()).isEqualTo("new");
  }

  @Test
  void aDeleteDuringAReloadIsNotRevertedByIt() throws Exception {
    DefinitionCache cache = cache();
    cache.save(target("merchant-paid", "old"));
    holdLists = true;
    CompletableFuture<Void> reload = CompletableFuture.runAsync(cache::reload);
    assertThat(listed.await(10, TimeUnit.SECONDS)).isTrue();
    cache.delete("merchant-paid");
    mayReturn.countDown();
    reload.get(10, TimeUnit.SECONDS);
    assertThat(cache.find("merchant-paid")).isEmpty();
  }

  @Test
  void aReloadStillBringsChangesMadeElsewhere() {
    DefinitionCache cache = cache();
    cache.save(target("merchant-paid", "old"));
    cache.save(target("gone", "h"));
    table.put("merchant-paid", target("merchant-paid", "other-node"));
    table.remove("gone");
    table.put("added", target("added", "h"));
    cache.reload();
    assertThat(cache.find("merchant-paid").orElseThrow().target()).isEqualTo("other-node");
    assertThat(cache.find("added")).isPresent();
    assertThat(cache.find("gone")).isEmpty();
  }
}
