package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A definition's (an endpoint's) OAuth 2.0 client-credentials settings (RFC 6749 4.4): each request
 * carries {@code Authorization: Bearer <token>}, the token fetched from {@code oauth2.url} with
 * {@code oauth2.client-id} and {@code oauth2.client-secret}, cached until shortly before it expires.
 *
 * @param tokenUrl where tokens come from (checked by the SSRF guard like any target)
 * @param clientSecret as stored (sealed at rest by a server); opened when a token is fetched
 * @param scope optional, space-separated
 * @param audience optional (some providers want it)
 * @param basicAuth true: the client's credentials in HTTP Basic (the RFC's default); false: in the form
 * @param key names the cached token: equal settings share one
 */
record OAuth2Client(Target tokenUrl, String clientId, String clientSecret, String scope, String audience,
    boolean basicAuth, String key) {
  static final String TOKEN_URL = "oauth2.url"; // not "token-url": a server seals every option naming a token
  static final String CLIENT_ID = "oauth2.client-id";
  static final String CLIENT_SECRET = "oauth2.client-secret";
  static final String SCOPE = "oauth2.scope";
  static final String AUDIENCE = "oauth2.audience";
  static final String CLIENT_AUTH = "oauth2.client-auth";
  static final List<String> OPTIONS = List.of(TOKEN_URL, CLIENT_ID, CLIENT_SECRET, SCOPE, AUDIENCE, CLIENT_AUTH);

  /**
   * The settings of a definition, or null when it has none.
   *
   * @throws InvalidInputException naming the option
   */
  static OAuth2Client of(NoticeDefinition d, UnaryOperator<String> open) {
    String url = d.option(TOKEN_URL, null);
    String id = d.option(CLIENT_ID, null);
    String secret = d.option(CLIENT_SECRET, null);
    boolean any = OPTIONS.stream().anyMatch(o -> d.option(o, null) != null);
    if (!any) {
      return null;
    }
    for (String[] required : new String[][] {{TOKEN_URL, url}, {CLIENT_ID, id}, {CLIENT_SECRET, secret}}) {
      if (required[1] == null || required[1].isBlank()) {
        throw new InvalidInputException("options." + required[0], "is required for OAuth 2.0 client credentials"
            + " (with " + TOKEN_URL + ", " + CLIENT_ID + " and " + CLIENT_SECRET + ")");
      }
    }
    Target t;
    try {
      t = Target.parse(url.strip());
    } catch (InvalidInputException e) {
      throw new InvalidInputException("options." + TOKEN_URL, e.reason());
    }
    String auth = d.option(CLIENT_AUTH, "basic").strip();
    if (!auth.equals("basic") && !auth.equals("post")) {
      throw new InvalidInputException("options." + CLIENT_AUTH, "must be basic (HTTP Basic, the default) or post (in"
          + " the form), was '" + auth + "'");
    }
    if (d.option("header.authorization", null) != null || d.option("secret-header.authorization", null) != null) {
      throw new InvalidInputException("options." + TOKEN_URL, "sets the Authorization header; the definition sets"
          + " one too (header.authorization or secret-header.authorization): keep one");
    }
    String scope = d.option(SCOPE, null);
    String audience = d.option(AUDIENCE, null);
    open.apply(secret); // fails now, naming the reason, if the value cannot be opened
    return new OAuth2Client(t, id.strip(), secret, scope == null ? null : scope.strip(),
        audience == null ? null : audience.strip(), auth.equals("basic"), key(url, id, secret, scope, audience, auth));
  }

  private static String key(String... parts) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String p : parts) {
        sha.update((p == null ? "-" : p).getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
