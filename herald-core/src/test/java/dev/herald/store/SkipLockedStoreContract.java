package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.spi.Claim;
import dev.herald.spi.NoticeRow;
import dev.herald.store.jdbc.ClaimStrategy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterStoreContract} for the databases that claim with {@code FOR UPDATE SKIP LOCKED}
 * (PostgreSQL, MySQL, MariaDB): a claim steps over rows another transaction holds instead of
 * waiting for them. (H2 has no SKIP LOCKED; {@code H2ClusterStoreTest} checks what it does instead.)
 */
public abstract class SkipLockedStoreContract extends ClusterStoreContract {

  @Test
  void claimsWithSkipLocked() {
    assertThat(dialect().claimStrategy()).isNotEqualTo(ClaimStrategy.SELECT_THEN_UPDATE);
  }

  @Test
  void aClaimSkipsRowsThatAnotherTransactionHoldsInsteadOfWaiting() throws Exception {
    NoticeRow locked = insert(row().due(T.minusSeconds(2)));
    NoticeRow free = insert(row().due(T.minusSeconds(1)));
    Instant lease = T.plusSeconds(30);
    try (Connection other = dataSource().getConnection()) {
      other.setAutoCommit(false);
      try (PreparedStatement ps = other.prepareStatement("SELECT id FROM herald_notice WHERE id = ? FOR UPDATE")) {
        dialect().setId(ps, 1, locked.id());
        ps.executeQuery().close();
      }
      List<NoticeRow> got = CompletableFuture.supplyAsync(() -> store.claim(new Claim("n1", T, T, lease, 10)))
          .get(10, TimeUnit.SECONDS);
      assertThat(got).as("the locked row is skipped, not waited for").containsExactly(leased(free, "n1", lease, T));
      other.rollback();
    }
    assertThat(store.claim(new Claim("n2", T, T, lease, 10))).containsExactly(leased(locked, "n2", lease, T));
  }
}
