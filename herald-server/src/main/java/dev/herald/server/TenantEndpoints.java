package dev.herald.server;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeRequest;
import dev.herald.Targets;
import dev.herald.channel.http.HttpChannel;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoints (origins) a tenant's notices go to, for what the tenant sees of {@code GET
 * /endpoints}: the origins of the definitions it sees, and those of its notices' own callback URLs,
 * recorded in {@code herald_server_tenant_endpoint} (once per tenant and origin).
 */
public final class TenantEndpoints {
  private static final Logger log = LoggerFactory.getLogger(TenantEndpoints.class);
  private static final int REMEMBERED = 100_000;

  private final DataSource dataSource;
  private final Clock clock;
  private final Set<String> recorded = ConcurrentHashMap.newKeySet();

  TenantEndpoints(DataSource dataSource, Clock clock) {
    this.dataSource = dataSource;
    this.clock = clock;
  }

  /** Records the origins of the new notices' own callback URLs, per tenant. */
  void saw(List<String> tenants, List<NoticeRequest> requests, List<Notice> notices, Herald herald) {
    java.util.Set<String> seen = new java.util.HashSet<>(); // a batch's notices mostly share their URL: parse it once
    for (int i = 0; i < requests.size(); i++) {
      String target = requests.get(i).target();
      if (target == null || !seen.add(tenants.get(i) + " " + target)) {
        continue;
      }
      List<String> urls;
      try {
        urls = Targets.parse(target).list();
      } catch (InvalidInputException e) {
        continue; // not a fail-over list (enqueue checked it): no endpoint
      }
      for (String url : urls) {
        try {
          record(tenants.get(i), HttpChannel.endpointOf(url));
        } catch (InvalidInputException e) {
          // not a URL: no endpoint
        }
      }
    }
  }

  private void record(String tenant, String endpoint) {
    String key = tenant + " " + endpoint;
    if (recorded.contains(key)) {
      return;
    }
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT 1 FROM herald_server_tenant_endpoint WHERE tenant = ? AND endpoint = ?")) {
        ps.setString(1, tenant);
        ps.setString(2, endpoint);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            try (PreparedStatement ins = c.prepareStatement(
                "INSERT INTO herald_server_tenant_endpoint (tenant, endpoint, seen_at) VALUES (?, ?, ?)")) {
              ins.setString(1, tenant);
              ins.setString(2, endpoint);
              ins.setLong(3, clock.millis());
              ins.executeUpdate();
            } catch (SQLException raced) {
              // recorded by another request meanwhile
            }
          }
        }
      }
      if (recorded.size() < REMEMBERED) {
        recorded.add(key);
      }
    } catch (SQLException e) {
      log.warn("cannot record endpoint {} of tenant {}: {}", endpoint, tenant, e.getMessage());
    }
  }

  /** Every endpoint the caller's tenant has: recorded, or a target of a definition it sees. */
  public Set<String> of(Caller caller, TenantScope scope, Herald herald) {
    Set<String> out = new HashSet<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT endpoint FROM herald_server_tenant_endpoint WHERE tenant = ?")) {
      ps.setString(1, caller.tenant());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw new ApiTokens.StoreUnavailable("cannot read the tenant's endpoints: " + e.getMessage(), e);
    }
    for (NoticeDefinition d : scope.definitions(caller, herald)) {
      out.addAll(origins(d));
    }
    return out;
  }

  /** The endpoints (origins) of a definition's own targets: its target and its fallback-targets. */
  public static Set<String> origins(NoticeDefinition d) {
    Set<String> out = new HashSet<>();
    if (!d.channel().equals(HttpChannel.NAME)) {
      return out;
    }
    List<String> urls = new ArrayList<>();
    for (String text : new String[] {d.target(), d.options().get("fallback-targets")}) {
      if (text != null && !text.isBlank()) {
        try {
          urls.addAll(Targets.parse(text).list());
        } catch (InvalidInputException e) {
          // not a fail-over list: no endpoint
        }
      }
    }
    for (String u : urls) {
      try {
        out.add(HttpChannel.endpointOf(u));
      } catch (InvalidInputException e) {
        // not a URL: no endpoint
      }
    }
    return out;
  }
}
