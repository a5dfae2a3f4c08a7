package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Herald;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The tenants of notices, as the server keeps them beside the core's tables. */
class NoticeOwnersTest extends ServerTest {

  @Test
  void purgingForgetsOnlyTheTenantsOfNoticesThatNoLongerExist() throws Exception {
    NoticeOwners owners = server.context.getBean(NoticeOwners.class);
    Herald herald = server.context.getBean(Herald.class);
    String def = define("owned", "\"target\":\"https://example.com/hook\",\"retry\":\"1h\"");
    UUID kept = UUID.fromString(create(admin, "{\"definition\":\"" + def + "\",\"payload\":{},\"delay\":\"1h\"}"));
    List<UUID> gone = new ArrayList<>();
    for (int i = 0; i < 1_201; i++) { // more than one chunk of the purge's reads
      gone.add(UUID.randomUUID());
    }
    try (Connection c = server.context.getBean(DataSource.class).getConnection()) {
      c.setAutoCommit(false);
      owners.write(c, gone, "purged");
      owners.writeOne(c, kept, "purged");
      c.commit();
    }

    int purged = owners.purgeOrphans(System.currentTimeMillis() + Duration.ofMinutes(1).toMillis(), herald.reports());

    assertThat(purged).isGreaterThanOrEqualTo(gone.size());
    assertThat(owners.tenantsOf(gone)).as("rows of notices that do not exist").isEmpty();
    assertThat(owners.tenantOf(kept)).as("the row of a notice that exists").isEqualTo("purged");
  }
}
