package dev.herald.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.sql.DataSource;

/**
 * The per-notice confirm capability: an HMAC of the notice id under a server key (one for every server
 * sharing the database, in {@code herald_server_setting}, sealed at rest like other secrets). Sent to
 * the receiver of a notice whose definition requires confirmation, in the header {@value #HEADER}:
 * {@code POST <url>} confirms that notice and nothing else, without an API token.
 */
final class ConfirmCapability {
  static final String HEADER = "herald-confirm-url";
  static final String PARAMETER = "capability";
  private static final String SETTING = "confirm-key";

  private final byte[] key;
  private final String baseUrl;

  /** @param baseUrl where receivers reach this API, e.g. {@code https://herald.example}; blank for a path only */
  ConfirmCapability(DataSource dataSource, SecretBox box, String baseUrl) {
    this.key = Base64.getDecoder().decode(box.open(loadOrCreate(dataSource, box)));
    this.baseUrl = baseUrl == null ? "" : baseUrl.strip().replaceAll("/+$", "");
  }

  private static String loadOrCreate(DataSource dataSource, SecretBox box) {
    try (Connection c = dataSource.getConnection()) {
      String stored = read(c);
      if (stored != null) {
        if (box.stale(stored)) {
          try (PreparedStatement ps = c.prepareStatement("UPDATE herald_server_setting SET setting_value = ? WHERE name = ?")) {
            ps.setString(1, box.seal(box.open(stored)));
            ps.setString(2, SETTING);
            ps.executeUpdate();
          }
        }
        return stored;
      }
      byte[] k = new byte[32];
      new SecureRandom().nextBytes(k);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO herald_server_setting (name, setting_value) VALUES (?, ?)")) {
        ps.setString(1, SETTING);
        ps.setString(2, box.seal(Base64.getEncoder().encodeToString(k)));
        ps.executeUpdate();
      } catch (SQLException raced) {
        // another server stored one first: use it
      }
      return read(c);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the confirm key: " + e.getMessage(), e);
    }
  }

  private static String read(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT setting_value FROM herald_server_setting WHERE name = ?")) {
      ps.setString(1, SETTING);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  String of(UUID id) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return Base64.getUrlEncoder().withoutPadding()
          .encodeToString(mac.doFinal(("confirm:" + id).getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  boolean valid(UUID id, String capability) {
    return capability != null && MessageDigest.isEqual(of(id).getBytes(StandardCharsets.US_ASCII),
        capability.strip().getBytes(StandardCharsets.US_ASCII));
  }

  /** The URL a receiver POSTs to confirm the notice. */
  String url(UUID id) {
    return baseUrl + "/api/v1/notices/" + id + "/confirm?" + PARAMETER + "=" + of(id);
  }

  /** The header for the webhook of a notice, when its definition waits for a confirmation. */
  Map<String, String> headers(dev.herald.spi.Delivery d) {
    return d.definition().confirmRequired() ? Map.of(HEADER, url(d.notice().id())) : Map.of();
  }
}
