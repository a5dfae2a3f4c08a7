package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.server.console.ConsoleRole;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one policy of the API and the console, as a table: what each API token role and each console
 * role may do, acting for every tenant (*) or for tenant shop. A change of a role's rights changes a
 * row here; a new permission without a row fails.
 */
class AccessTest {
  private static final Map<String, Caller> CALLERS = new LinkedHashMap<>();

  static {
    CALLERS.put("api admin *", token(Role.ADMIN, null));
    CALLERS.put("api admin shop", token(Role.ADMIN, "shop"));
    CALLERS.put("api client shop", token(Role.CLIENT, "shop"));
    for (ConsoleRole role : ConsoleRole.values()) {
      for (String tenant : new String[] {null, "shop"}) {
        CALLERS.put("console " + role.text() + " " + (tenant == null ? "*" : tenant),
            new Caller("user u", tenant, Access.permissions(role.grants(), tenant), "127.0.0.1"));
      }
    }
  }

  //                                         api admin  api      console admin  operator   viewer
  //                                         *   shop   client   *   shop       *   shop   *   shop
  private static final Map<Permission, String> TABLE = Map.ofEntries(
      Map.entry(Permission.READ,               "x   x      x        x   x          x   x      x   x"),
      Map.entry(Permission.CREATE_NOTICES,     "x   x      x        x   x          .   .      .   ."),
      Map.entry(Permission.ACT_ON_NOTICES,     "x   x      x        x   x          x   x      .   ."),
      Map.entry(Permission.ACT_ON_SCHEDULES,   "x   x      .        x   x          x   x      .   ."),
      Map.entry(Permission.MANAGE_DEFINITIONS, "x   x      .        x   x          .   .      .   ."),
      Map.entry(Permission.READ_TARGETS,       "x   x      .        x   x          .   .      .   ."),
      Map.entry(Permission.EXPUNGE,            "x   x      .        x   x          .   .      .   ."),
      Map.entry(Permission.MANAGE_TOKENS,      "x   x      .        x   x          .   .      .   ."),
      Map.entry(Permission.READ_AUDIT,         "x   x      .        x   x          .   .      .   ."),
      Map.entry(Permission.MANAGE_TENANTS,     "x   .      .        x   .          .   .      .   ."),
      Map.entry(Permission.MANAGE_ENDPOINTS,   "x   .      .        x   .          .   .      .   ."),
      Map.entry(Permission.MANAGE_USERS,       "x   .      .        x   .          .   .      .   ."),
      Map.entry(Permission.INSPECT_SERVER,     "x   .      .        x   .          .   .      .   ."));

  @Test
  void eachRoleMayWhatTheTableSays() {
    assertThat(TABLE).containsOnlyKeys(Permission.values());
    for (Permission p : Permission.values()) {
      List<String> expected = List.of(TABLE.get(p).split("\\s+"));
      List<String> actual = new ArrayList<>();
      CALLERS.values().forEach(c -> actual.add(Access.may(c, p) ? "x" : "."));
      assertThat(actual).as("%s for %s", p, CALLERS.keySet()).isEqualTo(expected);
    }
  }

  @Test
  void whatEveryTenantSharesIsOnlyForCallersOfEveryTenant() {
    for (Permission p : Permission.values()) {
      boolean anyOneTenantCaller = CALLERS.values().stream().anyMatch(c -> !c.everyTenant() && Access.may(c, p));
      assertThat(anyOneTenantCaller).as(p.name()).isEqualTo(!p.everyTenant());
    }
  }

  @Test
  void nobodyMayAnythingAndACallerOfOneTenantTouchesOnlyItsOwn() {
    assertThat(Access.may(null, Permission.READ)).isFalse();
    Caller shop = CALLERS.get("api admin shop");
    assertThat(Access.touches(shop, "shop")).isTrue();
    assertThat(Access.touches(shop, "bank")).isFalse();
    assertThat(Access.touches(shop, null)).as("what belongs to every tenant").isFalse();
    Caller operator = CALLERS.get("api admin *");
    assertThat(Access.touches(operator, "bank")).isTrue();
    assertThat(Access.touches(operator, null)).isTrue();
    assertThat(shop.actor()).isEqualTo("token t (admin, shop)");
  }

  private static Caller token(Role role, String tenant) {
    return Caller.of(new ApiTokens.Info("id", "t", role, tenant, "hrd_abcd...", Instant.EPOCH, "test", null, null),
        "127.0.0.1");
  }
}
