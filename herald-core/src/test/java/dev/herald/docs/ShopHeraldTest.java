package dev.herald.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.Herald;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The "Using Herald from Java" example (docs/java.md) compiles and delivers. */
class ShopHeraldTest {
  @TempDir Path dir;

  @Test
  void theReadmeExampleDeliversToItsHandlers() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:file:" + dir.resolve("shop") + ";DB_CLOSE_ON_EXIT=FALSE");
    List<String> notified = new CopyOnWriteArrayList<>();
    OrderService orders = new OrderService();
    try (Herald herald = ShopHerald.start(ds, payload -> notified.add(payload), orders)) {
      herald.enqueue("order-paid", "{\"order\":42}");
      herald.enqueue("order-auto-close", "{\"order\":43}");
      await().atMost(Duration.ofSeconds(10)).until(() -> notified.size() == 1 && orders.closed.size() == 1);
      assertThat(notified).containsExactly("{\"order\":42}");
      assertThat(orders.closed).containsExactly("{\"order\":43}");
    }
  }
}
