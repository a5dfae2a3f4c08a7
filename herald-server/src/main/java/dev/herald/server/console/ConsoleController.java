package dev.herald.server.console;

import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeEdit;
import dev.herald.NoticeStatus;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import dev.herald.server.AuditLog;
import dev.herald.server.Access;
import dev.herald.server.Caller;
import dev.herald.server.Permission;
import dev.herald.server.TenantScope;
import dev.herald.server.UrlMasking;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.core.Authentication;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/**
 * The console's notice pages: overview with charts, search, detail, and the operator actions. Every
 * action calls {@link dev.herald.NoticeOperations}, exactly as the HTTP API does; who may call them
 * is checked by {@link ConsoleSecurity}.
 */
@Controller
@RequestMapping("/console")
class ConsoleController {
  static final int PAGE_SIZE = 25;
  /** Pages further than this are refused (400): a search that deep wants narrower criteria. */
  static final int MAX_PAGE = 10_000;
  /** Longest text of a search field. */
  static final int MAX_FIELD = 200;

  private final Herald herald;
  private final NoticeSearch search;
  private final Charts charts;
  private final TenantScope scope;
  private final AuditLog audit;

  ConsoleController(Herald herald, TenantScope scope, AuditLog audit) {
    this.herald = herald;
    this.search = new NoticeSearch(herald.reports());
    this.charts = new Charts(herald.reports());
    this.scope = scope;
    this.audit = audit;
  }

  /** The tenant a user's searches are narrowed to; null when they see every notice. */
  private String narrowTo(Caller caller) {
    return scope.narrows(caller) ? caller.tenant() : null;
  }

  private List<String> definitionNames(Caller caller) {
    return scope.definitions(caller, herald).stream().map(NoticeDefinition::name).toList();
  }

  @GetMapping("/login")
  String login() {
    return "console/login";
  }

  @RequestMapping("/denied")
  String denied() {
    return "console/denied";
  }

  @GetMapping({"", "/"})
  String overview(@RequestParam(required = false) String range, @RequestParam(required = false) String definition,
      Model model, Authentication auth, HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    limit("definition", definition);
    Charts.Range r = Charts.Range.parse(range);
    Charts.Series s = charts.series(r, definition, narrowTo(caller), herald.clock().instant());
    model.addAttribute("range", r.name().toLowerCase(java.util.Locale.ROOT));
    model.addAttribute("definition", definition == null ? "" : definition);
    model.addAttribute("definitions", definitionNames(caller));
    model.addAttribute("seriesJson", tools.jackson.databind.json.JsonMapper.shared().writeValueAsString(s));
    model.addAttribute("totalDeliveries", s.totalDeliveries());
    model.addAttribute("totalFailures", s.totalFailures());
    model.addAttribute("backlogNow", s.backlog()[s.backlog().length - 1]);
    return "console/overview";
  }

  /** Refuses a search field longer than {@value #MAX_FIELD} characters (400). */
  static void limit(String field, String value) {
    if (value != null && value.length() > MAX_FIELD) {
      throw new IllegalArgumentException(field + ": at most " + MAX_FIELD + " characters");
    }
  }

  @GetMapping("/notices")
  String notices(SearchForm form, Model model, Authentication auth, HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    form.check();
    model.addAttribute("definitions", definitionNames(caller));
    model.addAttribute("statuses", NoticeStatus.values());
    model.addAttribute("form", form);
    if (form.getId() != null && !form.getId().isBlank()) {
      UUID id = parseId(form.getId());
      if (id == null) {
        model.addAttribute("error", "id: not a notice id (a UUID)");
        model.addAttribute("rows", List.of());
        return "console/notices";
      }
      model.addAttribute("rows", scope.seesNotice(caller, id)
          ? herald.operations().find(id).map(d -> List.of(row(d))).orElse(List.of()) : List.of());
      return "console/notices";
    }
    NoticeSearch.Criteria criteria;
    try {
      criteria = form.criteria();
    } catch (IllegalArgumentException e) {
      model.addAttribute("error", e.getMessage());
      model.addAttribute("rows", List.of());
      return "console/notices";
    }
    List<NoticeSearch.Row> rows = search.page(criteria.within(narrowTo(caller)), form.offset(), PAGE_SIZE);
    model.addAttribute("hasMore", rows.size() > PAGE_SIZE);
    model.addAttribute("rows", rows.size() > PAGE_SIZE ? rows.subList(0, PAGE_SIZE) : rows);
    model.addAttribute("page", form.getPage());
    return "console/notices";
  }

  private static NoticeSearch.Row row(NoticeDetail d) {
    var n = d.notice();
    return new NoticeSearch.Row(n.id(), n.definition(), n.status(), n.attempts(), n.fireAt(), n.createdAt(),
        n.description(), n.lastError());
  }

  @GetMapping("/notices/{id}")
  String detail(@PathVariable String id, Model model, Authentication auth, HttpServletRequest request,
      HttpServletResponse response) {
    Caller caller = ConsoleModel.caller(auth, request);
    UUID uuid = parseId(id);
    NoticeDetail d = uuid == null || !scope.seesNotice(caller, uuid) ? null : herald.operations().find(uuid).orElse(null);
    if (d == null) {
      response.setStatus(404);
      model.addAttribute("error", "No notice with id " + Masking.text(id));
      return "console/denied";
    }
    boolean admin = Access.may(caller, Permission.READ_TARGETS);
    model.addAttribute("n", d.notice());
    model.addAttribute("target", admin ? d.notice().target() : UrlMasking.mask(d.notice().target()));
    model.addAttribute("idempotencyKey", dev.herald.server.TenantKeys.own(d.notice().idempotencyKey()));
    model.addAttribute("attempts", d.attempts().stream()
        .map(a -> Map.of("number", a.number(), "startedAt", a.startedAt(), "duration", a.duration().toMillis(),
            "outcome", a.outcome(), "detail", a.detail() == null ? "" : admin ? Masking.signatures(a.detail())
                : UrlMasking.maskIn(Masking.signatures(a.detail())),
            "view", AttemptView.of(a.detail() == null ? "" : admin ? Masking.signatures(a.detail())
                : UrlMasking.maskIn(Masking.signatures(a.detail()))),
            "node", a.node() == null ? "" : a.node()))
        .toList());
    return "console/notice";
  }

  @PostMapping("/notices/{id}/{action:resend|cancel|confirm}")
  String act(@PathVariable String id, @PathVariable String action, RedirectAttributes flash, Authentication auth,
      HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    UUID uuid = parseId(id);
    if (uuid == null || !scope.seesNotice(caller, uuid)) {
      flash.addFlashAttribute("error", uuid == null ? "id: not a notice id (a UUID)" : "No notice with id " + uuid);
      return "redirect:/console/notices";
    }
    // what the action did, not a status that may be stale by the time the page shows (a resent notice is
    // often delivered before the redirect)
    attempt(flash, "%s", () -> {
      String said = switch (action) {
        case "resend" -> {
          herald.operations().resend(uuid);
          yield "Resent: due now with a fresh attempt budget. Its status and attempts below show how it went.";
        }
        case "cancel" -> {
          herald.operations().cancel(uuid);
          yield "Cancelled: it will not be delivered again.";
        }
        default -> "Confirmed: the notice is " + herald.operations().confirm(uuid).status() + ".";
      };
      audit.record(caller, scope.owners().tenantOf(uuid), "notice." + action, uuid.toString(), said);
      return said;
    });
    return "redirect:/console/notices/" + uuid;
  }

  @PostMapping("/notices/{id}/fire-time")
  String reschedule(@PathVariable String id, @RequestParam String fireAt, RedirectAttributes flash,
      Authentication auth, HttpServletRequest request) {
    Caller caller = ConsoleModel.caller(auth, request);
    UUID uuid = parseId(id);
    if (uuid == null || !scope.seesNotice(caller, uuid)) {
      flash.addFlashAttribute("error", uuid == null ? "id: not a notice id (a UUID)" : "No notice with id " + uuid);
      return "redirect:/console/notices";
    }
    limit("fireAt", fireAt);
    Instant when;
    try {
      when = parseTime(fireAt, "fireAt");
    } catch (IllegalArgumentException e) {
      flash.addFlashAttribute("error", e.getMessage());
      return "redirect:/console/notices/" + id;
    }
    attempt(flash, "Fire time changed to %s.", () -> {
      Object moved = herald.operations().edit(uuid, NoticeEdit.fireAt(when)).fireAt();
      audit.record(caller, scope.owners().tenantOf(uuid), "notice.edit", uuid.toString(), "fire time " + when);
      return moved;
    });
    return "redirect:/console/notices/" + uuid;
  }

  /** The confirmation step of a bulk action: says how many notices it will touch. */
  @GetMapping("/notices/bulk")
  String bulkConfirm(SearchForm form, @RequestParam String action, Model model, Authentication auth,
      HttpServletRequest request, jakarta.servlet.http.HttpSession session) {
    Caller caller = ConsoleModel.caller(auth, request);
    form.check();
    Bulk bulk = Bulk.parse(action);
    List<UUID> ids = search.ids(bulk.narrow(form.criteria()).within(narrowTo(caller)));
    model.addAttribute("form", form);
    model.addAttribute("action", bulk.name().toLowerCase(java.util.Locale.ROOT));
    model.addAttribute("selection", BulkSelections.remember(session, ids.subList(0, Math.min(ids.size(),
        NoticeSearch.MAX_BULK))));
    model.addAttribute("count", Math.min(ids.size(), NoticeSearch.MAX_BULK));
    model.addAttribute("tooMany", ids.size() > NoticeSearch.MAX_BULK);
    model.addAttribute("query", form.query());
    return "console/bulk";
  }

  @PostMapping("/notices/bulk")
  String bulk(SearchForm form, @RequestParam String action, @RequestParam(required = false) String selection,
      RedirectAttributes flash, Authentication auth, HttpServletRequest request, jakarta.servlet.http.HttpSession session) {
    Caller caller = ConsoleModel.caller(auth, request);
    form.check();
    Bulk bulk = Bulk.parse(action);
    // exactly the notices the confirmation counted, not what the search matches now (it was narrowed to the
    // caller's tenant when counted)
    List<UUID> ids = BulkSelections.take(session, selection).orElse(null);
    if (ids == null) {
      flash.addFlashAttribute("error", "That confirmation was used or has expired; nothing was changed. Search and"
          + " confirm again.");
      return "redirect:/console/notices?" + form.query();
    }
    int done = 0;
    int refused = 0;
    for (UUID id : ids) {
      try {
        bulk.apply(herald, id);
        done++;
      } catch (HeraldException e) {
        refused++;
      }
    }
    audit.record(caller, caller.tenant(), "notices.bulk-" + bulk.name().toLowerCase(java.util.Locale.ROOT),
        form.query(), done + " of " + ids.size() + " notice(s) done, " + refused + " refused");
    flash.addFlashAttribute("message", bulk.name().toLowerCase(java.util.Locale.ROOT) + ": " + done + " of "
        + ids.size() + " confirmed notice(s) done" + (refused > 0 ? ", " + refused
        + " refused (their status changed meanwhile, e.g. finished)" : ""));
    return "redirect:/console/notices?" + form.query();
  }

  /** Bad input in a request the pages did not build (a hand-made URL): a precise message, nothing changed. */
  @org.springframework.web.bind.annotation.ExceptionHandler(IllegalArgumentException.class)
  @org.springframework.web.bind.annotation.ResponseStatus(org.springframework.http.HttpStatus.BAD_REQUEST)
  String badInput(IllegalArgumentException e, Model model) {
    model.addAttribute("error", Masking.text(e.getMessage()));
    return "console/denied";
  }

  /** Bulk actions over a search result. */
  enum Bulk {
    RESEND,
    CANCEL,
    /** Resend the DEAD notices of the result. */
    RECOVER;

    static Bulk parse(String s) {
      try {
        return valueOf(s.strip().toUpperCase(java.util.Locale.ROOT));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("action: one of resend, cancel, recover");
      }
    }

    NoticeSearch.Criteria narrow(NoticeSearch.Criteria c) {
      return this == RECOVER ? new NoticeSearch.Criteria(c.definition(), NoticeStatus.DEAD, c.from(), c.to(), c.key(),
          c.text()) : c;
    }

    void apply(Herald herald, UUID id) {
      switch (this) {
        case CANCEL -> herald.operations().cancel(id);
        default -> herald.operations().resend(id);
      }
    }
  }

  private interface Action {
    Object run();
  }

  private static void attempt(RedirectAttributes flash, String success, Action action) {
    try {
      flash.addFlashAttribute("message", String.format(success, action.run()));
    } catch (HeraldException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
  }

  static UUID parseId(String s) {
    try {
      return UUID.fromString(s.strip());
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** ISO-8601 instant, or a browser's datetime-local value (read as UTC). */
  static Instant parseTime(String s, String field) {
    if (s == null || s.isBlank()) {
      return null;
    }
    try {
      return Instant.parse(s.strip());
    } catch (DateTimeParseException e) {
      try {
        return LocalDateTime.parse(s.strip()).toInstant(ZoneOffset.UTC);
      } catch (DateTimeParseException e2) {
        throw new IllegalArgumentException(field + ": '" + s + "' is not a time (ISO-8601, e.g. 2026-01-31T12:00:00Z)");
      }
    }
  }

  /** The search form's fields, bound from the query string. */
  public static class SearchForm {
    private String definition;
    private String status;
    private String from;
    private String to;
    private String id;
    private String key;
    private String text;
    private int page;

    NoticeSearch.Criteria criteria() {
      NoticeStatus st = null;
      if (status != null && !status.isBlank()) {
        try {
          st = NoticeStatus.valueOf(status.strip());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("status: not one of PENDING, IN_FLIGHT, FAILED, AWAITING_CONFIRM,"
              + " SUCCEEDED, DEAD, CANCELLED");
        }
      }
      return new NoticeSearch.Criteria(definition, st, parseTime(from, "from"), parseTime(to, "to"), key, text);
    }

    int offset() {
      return page * PAGE_SIZE;
    }

    /** Refuses what no page builds: a page past {@value #MAX_PAGE} or below 0, fields too long (400). */
    void check() {
      if (page < 0 || page > MAX_PAGE) {
        throw new IllegalArgumentException("page: must be from 0 to " + MAX_PAGE + ", was " + page);
      }
      limit("definition", definition);
      limit("status", status);
      limit("from", from);
      limit("to", to);
      limit("id", id);
      limit("key", key);
      limit("text", text);
    }

    /** The criteria as a query string (for paging links and after bulk actions). */
    String query() {
      Map<String, String> q = new LinkedHashMap<>();
      q.put("definition", definition);
      q.put("status", status);
      q.put("from", from);
      q.put("to", to);
      q.put("key", key);
      q.put("text", text);
      StringBuilder sb = new StringBuilder();
      q.forEach((k, v) -> {
        if (v != null && !v.isBlank()) {
          sb.append(sb.isEmpty() ? "" : "&").append(k).append('=')
              .append(java.net.URLEncoder.encode(v, java.nio.charset.StandardCharsets.UTF_8));
        }
      });
      return sb.toString();
    }

    public String getQuery() {
      return query();
    }

    public String getDefinition() { return definition; }
    public void setDefinition(String v) { definition = v; }
    public String getStatus() { return status; }
    public void setStatus(String v) { status = v; }
    public String getFrom() { return from; }
    public void setFrom(String v) { from = v; }
    public String getTo() { return to; }
    public void setTo(String v) { to = v; }
    public String getId() { return id; }
    public void setId(String v) { id = v; }
    public String getKey() { return key; }
    public void setKey(String v) { key = v; }
    public String getText() { return text; }
    public void setText(String v) { text = v; }
    public int getPage() { return page; }
    public void setPage(int v) { page = v; }
  }

}
