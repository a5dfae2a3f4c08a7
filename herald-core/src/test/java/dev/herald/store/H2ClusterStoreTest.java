package dev.herald.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.spi.Claim;
import dev.herald.spi.NoticeRow;
import dev.herald.store.jdbc.ClaimStrategy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ClusterStoreContract} (the contract plus what nodes sharing a database need) on H2, which
 * has no SKIP LOCKED: a claim selects candidates, then leases each with a version check, so a row
 * another transaction is changing is waited for and then taken only if its version still matches.
 */
class H2ClusterStoreTest extends ClusterStoreContract {
  @RegisterExtension static final DatabaseFixture DB = DatabaseFixture.h2();

  @Override
  protected DataSource dataSource() {
    return DB.current();
  }

  @Test
  void claimsBySelectThenVersionCheckedUpdate() {
    assertThat(dialect().claimStrategy()).isEqualTo(ClaimStrategy.SELECT_THEN_UPDATE);
  }

  @Test
  void aClaimWaitingOnARowAnotherClaimerTookDoesNotTakeItAgain() throws Exception {
    NoticeRow taken = insert(row().due(T.minusSeconds(2)));
    NoticeRow free = insert(row().due(T.minusSeconds(1)));
    Instant lease = T.plusSeconds(30);
    try (Connection other = dataSource().getConnection()) {
      other.setAutoCommit(false);
      // Another node's claim, not yet committed: the row is locked and its version moves on.
      try (PreparedStatement ps = other.prepareStatement(
          "UPDATE herald_notice SET owner = 'n0', lease_until = ?, version = version + 1 WHERE id = ?")) {
        ps.setLong(1, lease.toEpochMilli());
        dialect().setId(ps, 2, taken.id());
        assertThat(ps.executeUpdate()).isEqualTo(1);
      }
      CompletableFuture<List<NoticeRow>> claim =
          CompletableFuture.supplyAsync(() -> store.claim(new Claim("n1", T, T, lease, 10)));
      await().atMost(Duration.ofSeconds(10)).until(() -> claim.isDone() || aSessionIsBlocked());
      other.commit();
      assertThat(claim.get(10, TimeUnit.SECONDS)).as("the row n0 took is not leased twice")
          .containsExactly(leased(free, "n1", lease, T));
    }
    assertThat(store.find(taken.id()).orElseThrow().owner()).isEqualTo("n0");
  }

  private boolean aSessionIsBlocked() throws SQLException {
    try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL")) {
      rs.next();
      return rs.getInt(1) > 0;
    }
  }
}
