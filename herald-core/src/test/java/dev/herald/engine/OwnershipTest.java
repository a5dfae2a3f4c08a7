package dev.herald.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeStatus;
import dev.herald.spi.Applied;
import dev.herald.spi.Change;
import dev.herald.spi.NoticeRow;
import dev.herald.spi.NoticeStore;
import dev.herald.testing.SettableClock;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link Ownership}, the one owner of what a node holds, against a store that records the node
 * table's statements: incarnations are registered before they claim, retired rather than dropped,
 * forgotten only once nothing of them is held; rows a node's tokens own that no memory holds are
 * found and given back.
 */
class OwnershipTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final Map<UUID, NoticeRow> rows = new ConcurrentHashMap<>();
  private volatile boolean beatsRefused;
  private volatile Duration beatTakes = Duration.ZERO;
  private volatile boolean registrationFails;

  private NoticeStore store() {
    return (NoticeStore) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {NoticeStore.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "registerNode" -> {
            calls.add("register " + args[0]);
            if (registrationFails) {
              throw new dev.herald.StoreException("pool timeout", new java.sql.SQLTransientConnectionException());
            }
            yield null;
          }
          case "forgetNode", "releaseHeld" -> {
            calls.add((method.getName().equals("forgetNode") ? "forget " : "release ") + args[0]);
            yield method.getName().equals("forgetNode") ? null : 0;
          }
          case "heartbeat" -> {
            calls.add("beat " + args[0]);
            clock.advance(beatTakes);
            beatTakes = Duration.ZERO; // one slow beat
            yield !beatsRefused;
          }
          case "heldBy" -> {
            @SuppressWarnings("unchecked")
            java.util.Collection<String> owners = (java.util.Collection<String>) args[0];
            yield rows.values().stream().filter(r -> owners.contains(r.owner())).toList();
          }
          case "find" -> java.util.Optional.ofNullable(rows.get((UUID) args[0]));
          case "apply" -> {
            @SuppressWarnings("unchecked")
            List<Change> changes = (List<Change>) args[0];
            List<Applied> out = new ArrayList<>();
            for (Change c : changes) {
              NoticeRow now = rows.get(c.expected().id());
              boolean ok = now != null && now.version() == c.expected().version();
              if (ok) {
                rows.put(c.next().id(), c.next());
                calls.add("write " + c.next().id() + " " + c.next().status());
              }
              out.add(ok ? Applied.APPLIED : Applied.STALE);
            }
            yield out;
          }
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  private Ownership ownership() {
    return new Ownership(store(), clock, "node-a", TIMEOUT, Duration.ofSeconds(30), 100, Duration.ofHours(1),
        new Listeners(List.of()));
  }

  private NoticeRow owned(String owner) {
    Instant t = clock.instant();
    UUID id = UUID.randomUUID();
    Notice n = new Notice(id, "d", "{}", null, null, NoticeStatus.IN_FLIGHT, 0, t, t, null, null, t, t, null, null);
    NoticeRow row = new NoticeRow(n, owner, t.plus(TIMEOUT), 2, 0);
    rows.put(id, row);
    return row;
  }

  private static final NoticeDefinition DEF = NoticeDefinition.builder("d").handler("h").build();

  private HeldNotice hold(Ownership o, NoticeRow row) {
    assertThat(o.reserve(1)).isTrue();
    assertThat(o.hold(row, DEF)).isTrue();
    return o.holdings().get(row.id());
  }

  @Test
  void anIncarnationClaimsNothingBeforeItsRegistrationCommitted() {
    Ownership o = ownership();
    assertThat(o.claimToken()).as("not registered").isNull();
    registrationFails = true;
    o.heartbeat();
    assertThat(o.claimToken()).as("registration failed").isNull();
    registrationFails = false;
    o.heartbeat();
    assertThat(o.claimToken()).isEqualTo(o.currentToken());
  }

  // Finding 1, lapse path: a beat that came back late forgot the token's row while an attempt ran
  // under it; another node took the notice over at once.
  @Test
  void aBeatThatComesBackLateRetiresTheTokenWhichKeepsBeatingWhileItsAttemptRuns() {
    Ownership o = ownership();
    o.register();
    String first = o.claimToken();
    HeldNotice running = hold(o, owned(first));
    HeldNotice unstarted = hold(o, owned(first));
    o.timer().pollDue(Long.MAX_VALUE, 1); // the earliest leaves the timer...
    HeldNotice due = running.stage() == HeldNotice.Stage.WAITING ? running : unstarted;
    HeldNotice other = due == running ? unstarted : running;
    assertThat(o.holdings().begin(due)).isTrue(); // ...and its attempt starts

    beatTakes = Duration.ofSeconds(16); // past the fence (3/4 of the node timeout)
    o.heartbeat();

    String second = o.currentToken();
    assertThat(second).isNotEqualTo(first);
    assertThat(o.claimToken()).as("the new token registered at once").isEqualTo(second);
    assertThat(o.mayStart(other, clock.millis())).isFalse();
    assertThat(other.stage()).as("unstarted: let go").isEqualTo(HeldNotice.Stage.GONE);
    assertThat(o.reconcileDue()).as("its row waits for the poller").isTrue();
    o.reconcile();
    assertThat(rows.get(other.id()).status()).as("which releases it").isEqualTo(NoticeStatus.PENDING);
    assertThat(calls).doesNotContain("forget " + first);

    calls.clear();
    o.heartbeat();
    assertThat(calls).as("the retired token keeps beating while its attempt runs")
        .contains("beat " + first, "beat " + second).doesNotContain("forget " + first);

    o.holdings().recording(due);
    o.holdings().done(due); // its outcome is recorded
    calls.clear();
    o.heartbeat();
    assertThat(calls).containsSubsequence("release " + first, "forget " + first).doesNotContain("beat " + first);
    assertThat(o.isMine(first)).isFalse();
  }

  @Test
  void aRefusedBeatRetiresTheTokenAsLapsedWithoutBeatingItAgain() {
    Ownership o = ownership();
    o.register();
    String first = o.claimToken();
    HeldNotice h = hold(o, owned(first));
    o.timer().pollDue(Long.MAX_VALUE, 1);
    o.holdings().begin(h);
    beatsRefused = true;
    o.heartbeat();
    beatsRefused = false;
    assertThat(o.currentToken()).isNotEqualTo(first);
    assertThat(o.isMine(first)).as("remembered while its attempt runs").isTrue();
    calls.clear();
    o.heartbeat();
    assertThat(calls).doesNotContain("beat " + first);
  }

  // Finding 3: rows held under a live token by no memory were claimable by nobody while it lived.
  @Test
  void aSweepGivesBackWhatTheTokensOwnAndNoMemoryHolds() {
    Ownership o = ownership();
    o.register();
    String token = o.claimToken();
    HeldNotice held = hold(o, owned(token));
    NoticeRow stray = owned(token); // a claim whose answer was lost
    NoticeRow elsewhere = owned("node-b#x");
    o.doubtClaims();
    assertThat(o.reconcile()).isEqualTo(1);
    assertThat(rows.get(stray.id()).status()).isEqualTo(NoticeStatus.PENDING);
    assertThat(rows.get(stray.id()).owner()).isNull();
    assertThat(rows.get(held.id()).owner()).isEqualTo(token);
    assertThat(rows.get(elsewhere.id()).owner()).isEqualTo("node-b#x");
    assertThat(o.reconcileDue()).isFalse();
    // A claim of the stray row's old version, still on its way into memory, is not held.
    assertThat(o.reserve(1)).isTrue();
    assertThat(o.hold(stray, DEF)).isFalse();
  }

  @Test
  void aSuspectRowIsReadAndGivenBackWithoutASweep() {
    Ownership o = ownership();
    o.register();
    NoticeRow stray = owned(o.claimToken()); // an operator's write and its release both failed
    o.suspect(stray.id());
    assertThat(o.reconcile()).isEqualTo(1);
    assertThat(calls).noneMatch(c -> c.startsWith("heldBy"));
    assertThat(rows.get(stray.id()).owner()).isNull();
  }
}
