package dev.herald.server;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.channel.http.HttpChannel;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Signing that cannot be borrowed. A definition that signs its webhooks (option {@code secrets})
 * vouches for what it sends: a notice may name its own {@code callbackUrl} (or {@code fallbackUrls})
 * only on an origin the definition lists (its target's, its {@code fallback-targets}', its option
 * {@value #OPTION}) or its tenant lists ({@code callbackOrigins}). Otherwise anyone who may create
 * notices of it could have any body signed with its secret and sent anywhere, where it verifies as
 * the real sender's. An edit never moves a signed notice to another origin.
 */
final class CallbackOrigins {
  /** Definition option: origins, separated by spaces, where its notices' own callback URLs may point. */
  static final String OPTION = "callback-origins";

  private CallbackOrigins() {}

  /** Whether the definition signs its requests. */
  static boolean signs(NoticeDefinition d) {
    String s = d.options().get("secrets");
    return s != null && !s.isBlank();
  }

  /** The origin of a URL as {@code scheme://host:port}. */
  static String origin(String url, String field) {
    if (url == null || url.isBlank()) {
      throw ApiException.invalid(field, "must be an origin such as https://merchant.example");
    }
    try {
      return HttpChannel.endpointOf(url.strip());
    } catch (InvalidInputException e) {
      throw ApiException.invalid(field, e.reason());
    }
  }

  /** The definition's option, checked. */
  static List<String> read(NoticeDefinition d, String field) {
    String v = d.options().get(OPTION);
    if (v == null || v.isBlank()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String u : v.strip().split("\\s+")) {
      try {
        out.add(HttpChannel.endpointOf(u));
      } catch (InvalidInputException e) {
        throw new InvalidInputException(field, "'" + u + "': " + e.reason());
      }
    }
    return out;
  }

  /** Every origin the notices of a signing definition may name, for this tenant. */
  static Set<String> allowed(NoticeDefinition d, Tenants.Tenant tenant) {
    Set<String> out = new LinkedHashSet<>(read(d, "options." + OPTION));
    out.addAll(TenantEndpoints.origins(d));
    if (tenant != null) {
      out.addAll(tenant.callbackOrigins());
    }
    return out;
  }

  /**
   * Refuses a notice's own URL of a signing definition outside the allowed origins.
   *
   * @throws ApiException 400 naming {@code field}
   */
  static void check(NoticeDefinition d, Tenants.Tenant tenant, String url, String field) {
    if (!signs(d)) {
      return;
    }
    String origin;
    try {
      origin = HttpChannel.endpointOf(url.strip());
    } catch (InvalidInputException e) {
      return; // the URL check names what is wrong with it
    }
    Set<String> allowed = allowed(d, tenant);
    if (!allowed.contains(origin)) {
      throw ApiException.invalid(field, "definition '" + d.name() + "' signs its webhooks, so its notices may only be"
          + " sent to the origins it lists (its target, option " + OPTION + ") or the tenant lists (callbackOrigins): "
          + (allowed.isEmpty() ? "none" : String.join(", ", allowed)) + "; " + origin + " is not one of them");
    }
  }

  /**
   * Refuses an edit that would move a notice of a signing definition to another origin than its
   * current target's.
   */
  static void checkMove(NoticeDefinition d, String currentTarget, String newUrl, String field) {
    if (!signs(d)) {
      return;
    }
    String current = currentTarget == null ? d.target() : currentTarget;
    if (current == null) {
      return; // nothing to move from (a notice of a definition without a target always has its own)
    }
    String from;
    String to;
    try {
      from = HttpChannel.endpointOf(CallbackTargets.read(current).callbackUrl());
      to = HttpChannel.endpointOf(newUrl.strip());
    } catch (InvalidInputException e) {
      return;
    }
    if (!from.equals(to)) {
      throw ApiException.invalid(field, "definition '" + d.name() + "' signs its webhooks: an edit may change the"
          + " callbackUrl within its origin " + from + " only, not move it to " + to);
    }
  }
}
