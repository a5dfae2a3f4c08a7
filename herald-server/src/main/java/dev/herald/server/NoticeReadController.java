package dev.herald.server;

import static dev.herald.server.NoticeViews.detail;
import static dev.herald.server.NoticeViews.view;

import dev.herald.Herald;
import dev.herald.Notice;
import dev.herald.NoticeNotFoundException;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import jakarta.servlet.http.HttpServletRequest;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Notices read: search by definition, status and creation time, and one notice with its attempt log. */
@RestController
@RequestMapping("/api/v1/notices")
@Requires(Permission.READ)
class NoticeReadController {
  private static final Set<String> SEARCH_PARAMS = Set.of("definition", "status", "createdFrom", "createdTo", "offset",
      "limit");

  private final Herald herald;
  private final TenantScope scope;
  private final TenantNotices tenantNotices;

  NoticeReadController(Herald herald, TenantScope scope, TenantNotices tenantNotices) {
    this.herald = herald;
    this.scope = scope;
    this.tenantNotices = tenantNotices;
  }

  @GetMapping
  ObjectNode search(@RequestParam MultiValueMap<String, String> params, HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    for (String p : params.keySet()) {
      if (!SEARCH_PARAMS.contains(p)) {
        throw ApiException.invalid(p, "unknown parameter; expected " + String.join(", ", SEARCH_PARAMS));
      }
    }
    Set<NoticeStatus> statuses = EnumSet.noneOf(NoticeStatus.class);
    for (String v : params.getOrDefault("status", List.of())) {
      for (String s : v.split(",")) {
        if (s.isBlank()) {
          continue;
        }
        try {
          statuses.add(NoticeStatus.valueOf(s.strip().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw ApiException.invalid("status", "'" + s.strip() + "' is not one of " + List.of(NoticeStatus.values()));
        }
      }
    }
    String from = params.getFirst("createdFrom");
    String to = params.getFirst("createdTo");
    NoticeQuery q = new NoticeQuery(blankToNull(params.getFirst("definition")), statuses,
        from == null ? null : JsonInput.instant(from, "createdFrom"), to == null ? null : JsonInput.instant(to, "createdTo"),
        intParam(params, "offset", 0), intParam(params, "limit", 50));
    Page<Notice> page = scope.narrows(caller) ? tenantNotices.query(q, caller.tenant()) : herald.operations().query(q);
    ObjectNode out = Views.object();
    ArrayNode items = out.putArray("items");
    page.items().forEach(n -> items.add(view(n)));
    out.put("offset", page.offset());
    out.put("limit", page.limit());
    out.put("hasMore", page.hasMore());
    return out;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static int intParam(MultiValueMap<String, String> params, String name, int fallback) {
    String v = params.getFirst(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      throw ApiException.invalid(name, "must be a whole number, was '" + v + "'");
    }
  }

  @GetMapping("/{id}")
  ObjectNode get(@PathVariable("id") String id, HttpServletRequest request) {
    UUID uuid = visible(id, request);
    return detail(herald.operations().find(uuid).orElseThrow(() -> new NoticeNotFoundException(uuid)));
  }

  /** The id, if the caller sees that notice; else 404 exactly as for a notice that does not exist. */
  private UUID visible(String id, HttpServletRequest request) {
    UUID uuid = JsonInput.uuid(id, "id");
    scope.requireNotice(ApiFilter.caller(request), uuid);
    return uuid;
  }
}
