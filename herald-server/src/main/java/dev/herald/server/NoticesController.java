package dev.herald.server;

import static dev.herald.server.JsonInput.child;
import static dev.herald.server.JsonInput.index;

import dev.herald.Herald;
import dev.herald.IllegalTransitionException;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeEdit;
import dev.herald.NoticeNotFoundException;
import dev.herald.NoticeQuery;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.Page;
import dev.herald.Traceparent;
import dev.herald.channel.http.HttpChannel;
import dev.herald.schedule.DurationText;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Notices: document 002's batch create, edit, delete (cancel) and query, plus search, detail with the
 * attempt log, confirm, resend and bulk recovery. Errors in a request itself (shape, types, formats,
 * limits, unknown definitions, refused URLs) refuse the whole request and write nothing; what depends
 * on each notice's current state (not found, already delivered) is reported per item.
 */
@RestController
@RequestMapping("/api/v1/notices")
class NoticesController {
  static final Set<String> CREATE_FIELDS = Set.of(
      "definition", "callbackUrl", "fallbackUrls", "payload", "fireAt", "delay", "idempotencyKey", "description",
      "shardKey", "orderingKey", "traceparent");
  static final Set<String> EDIT_FIELDS = Set.of("id", "payload", "fireAt", "delay", "callbackUrl");
  private static final Set<String> SEARCH_PARAMS = Set.of("definition", "status", "createdFrom", "createdTo", "offset",
      "limit");
  private static final int MAX_LISTED_ERRORS = 100;

  private final Herald herald;
  private final HttpChannel http;
  private final ServerProperties properties;
  private final RequestBodies bodies;
  private final TenantScope scope;
  private final TenantNotices tenantNotices;
  private final TenantQuotas quotas;
  private final AuditLog audit;
  private final ConfirmCapability capability;
  private final TenantEndpoints endpoints;

  NoticesController(Herald herald, ServerHttpChannel http, ServerProperties properties, RequestBodies bodies,
      TenantScope scope, TenantNotices tenantNotices, TenantQuotas quotas, AuditLog audit,
      ConfirmCapability capability, TenantEndpoints endpoints) {
    this.herald = herald;
    this.http = http.http();
    this.properties = properties;
    this.bodies = bodies;
    this.scope = scope;
    this.tenantNotices = tenantNotices;
    this.quotas = quotas;
    this.audit = audit;
    this.capability = capability;
    this.endpoints = endpoints;
  }

  private ObjectNode body(HttpServletRequest request) {
    return bodies.object(request);
  }


  // ------------------------------------------------------------------------------------ create

  @PostMapping
  ResponseEntity<JsonNode> create(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = body(request);
    JsonInput.only(in, "", Set.of("notices"));
    ArrayNode items = JsonInput.batch(in, "", "notices", properties.getMaxBatch());
    Map<String, Optional<NoticeDefinition>> definitions = new HashMap<>();
    // another tenant's definition is refused exactly as one that does not exist
    Function<String, Optional<NoticeDefinition>> lookup = name -> definitions.computeIfAbsent(name,
        n -> scope.seesDefinition(caller, n) ? herald.definitions().find(n) : Optional.empty());
    List<NoticeRequest> requests = new ArrayList<>(items.size());
    List<String> tenantOf = new ArrayList<>(items.size());
    List<ApiException.FieldError> errors = new ArrayList<>();
    // The caller's trace context: its notices' attempts continue that trace. A malformed header is
    // ignored, as W3C Trace Context asks of receivers; an item's own traceparent field is checked.
    String traceparent = Traceparent.orNull(request.getHeader(Traceparent.HEADER));
    for (int i = 0; i < items.size(); i++) {
      try {
        NoticeRequest r = createRequest(items.get(i), index("notices", i), lookup, traceparent, caller);
        requests.add(r);
        tenantOf.add(scope.tenantOfNewNotice(caller, r.definition()));
      } catch (ApiException e) {
        collect(errors, e);
      } catch (InvalidInputException e) {
        errors.add(new ApiException.FieldError(e.field(), e.reason()));
      }
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid(errors);
    }
    Map<String, Integer> perTenant = new java.util.TreeMap<>();
    tenantOf.forEach(t -> perTenant.merge(t, 1, Integer::sum));
    perTenant.forEach(quotas::take); // 429 before anything is written
    Instant start = Instant.ofEpochMilli(herald.clock().millis()); // Herald stores whole milliseconds
    List<Notice> notices;
    try {
      notices = herald.inTransaction(tx -> {
        List<Notice> written = tx.enqueueAll(requests);
        Map<String, List<UUID>> owned = new HashMap<>();
        for (int i = 0; i < written.size(); i++) {
          owned.computeIfAbsent(tenantOf.get(i), k -> new ArrayList<>()).add(written.get(i).id());
        }
        for (Map.Entry<String, List<UUID>> e : owned.entrySet()) {
          if (!e.getKey().equals(Tenants.DEFAULT)) {
            // a notice returned for a known idempotency key has its row already
            Set<UUID> known = scope.owners().tenantsOf(e.getValue()).keySet();
            scope.owners().write(tx.connection(), e.getValue().stream().filter(id -> !known.contains(id))
                .distinct().toList(), e.getKey());
          }
        }
        return written;
      });
    } catch (InvalidInputException e) {
      throw ApiException.invalid(itemField(e.field(), requests.size() == 1), e.reason());
    }
    endpoints.saw(tenantOf, requests, notices, herald);
    ObjectNode out = Views.object();
    ArrayNode ids = out.putArray("ids");
    ArrayNode results = out.putArray("notices");
    boolean anyCreated = false;
    for (int i = 0; i < notices.size(); i++) {
      Notice n = notices.get(i);
      // A notice returned for a known idempotency key was created before this request.
      boolean created = requests.get(i).idempotencyKey() == null || !n.createdAt().isBefore(start);
      anyCreated |= created;
      ids.add(n.id().toString());
      ObjectNode r = results.addObject();
      r.put("index", i);
      r.put("id", n.id().toString());
      r.put("created", created);
      r.put("status", n.status().name());
      Views.time(r, "fireAt", n.fireAt());
    }
    return ResponseEntity.status(anyCreated ? HttpStatus.CREATED : HttpStatus.OK).body(out);
  }

  private NoticeRequest createRequest(JsonNode item, String path, Function<String, Optional<NoticeDefinition>> lookup,
      String traceparent, Caller caller) {
    ObjectNode o = JsonInput.object(item, path);
    JsonInput.only(o, path, CREATE_FIELDS);
    String definition = JsonInput.text(o, path, "definition");
    String url = JsonInput.text(o, path, "callbackUrl");
    if (!o.has("payload")) {
      throw ApiException.invalid(child(path, "payload"),
          "is required: any JSON value (object, array, string, number, true, false or null)");
    }
    String payload = JsonInput.payload(o.get("payload"), child(path, "payload"));
    Instant fireAt = JsonInput.instant(o, path, "fireAt");
    Duration delay = JsonInput.duration(o, path, "delay");
    if (fireAt != null && delay != null) {
      throw ApiException.invalid(child(path, "delay"), "give fireAt or delay, not both");
    }
    refuseBeyondHorizon(fireAt, delay, path);
    if (definition == null && url == null) {
      throw ApiException.invalid(child(path, "definition"),
          "is required unless callbackUrl is given (a direct callback uses definition '"
              + properties.getCallbackDefinition() + "')");
    }
    String name = definition != null ? definition : properties.getCallbackDefinition();
    NoticeDefinition d = lookup.apply(name).orElseThrow(() ->
        ApiException.invalid(child(path, "definition"), "no definition named '" + name + "'"));
    String tenant = scope.tenantOfNewNotice(caller, name);
    if (url != null) {
      if (!HttpChannel.NAME.equals(d.channel())) {
        throw ApiException.invalid(child(path, "callbackUrl"), "definition '" + name + "' delivers through channel '"
            + d.channel() + "'; a callbackUrl is only for definitions of channel http");
      }
      checkUrl(url, child(path, "callbackUrl"));
      Tenants.Tenant t = scope.tenants().find(tenant).orElse(null);
      CallbackOrigins.check(d, t, url, child(path, "callbackUrl"));
      url = withFallbacks(o, path, url, d, t);
    } else if (o.has("fallbackUrls")) {
      throw ApiException.invalid(child(path, "fallbackUrls"), "needs a callbackUrl: the fail-over targets of a"
          + " definition's own target are its option fallback-targets");
    } else if (Views.PER_NOTICE_TARGET.equals(d.target())) {
      throw ApiException.invalid(child(path, "callbackUrl"),
          "is required: definition '" + name + "' has no URL of its own");
    }
    NoticeRequest r = NoticeRequest.of(name, payload)
        .description(JsonInput.text(o, path, "description"))
        .idempotencyKey(TenantKeys.stored(tenant, key(o, path, "idempotencyKey", tenant)))
        .shardKey(JsonInput.text(o, path, "shardKey"))
        .orderingKey(TenantKeys.stored(tenant, key(o, path, "orderingKey", tenant)))
        .target(url);
    String own = JsonInput.text(o, path, "traceparent");
    if (own != null && !Traceparent.isValid(own)) {
      throw ApiException.invalid(child(path, "traceparent"),
          "must be a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lower case");
    }
    r = r.traceparent(own != null ? own : traceparent);
    if (fireAt != null) {
      r = r.fireAt(fireAt);
    } else if (delay != null) {
      r = r.delay(delay);
    }
    return r;
  }

  /** A key field: no control characters, short enough for the tenant's namespace in the stored key. */
  private static String key(ObjectNode o, String path, String name, String tenant) {
    String k = JsonInput.text(o, path, name);
    if (k == null) {
      return null;
    }
    int max = 200 - (tenant.equals(Tenants.DEFAULT) ? 0 : tenant.length() + 2);
    if (k.isBlank() || k.length() > max || k.chars().anyMatch(Character::isISOControl)) {
      throw ApiException.invalid(child(path, name), "must be 1 to " + max + " characters, without control characters");
    }
    return k;
  }

  /**
   * Refuses fire times further ahead than {@code herald.server.max-schedule-ahead}: a year such as
   * +999999 is a typo, not a plan, and would sit in the table for ever.
   */
  private void refuseBeyondHorizon(Instant fireAt, Duration delay, String path) {
    Duration horizon = properties.getMaxScheduleAhead();
    Instant limit = herald.clock().instant().plus(horizon);
    if (fireAt != null && fireAt.isAfter(limit)) {
      throw ApiException.invalid(child(path, "fireAt"), "'" + fireAt + "' is " + beyond(horizon, limit));
    }
    if (delay != null && delay.compareTo(horizon) > 0) {
      throw ApiException.invalid(child(path, "delay"), "'" + DurationText.format(delay) + "' is " + beyond(horizon, limit));
    }
  }

  /** Only for a refusal: built for every notice, this text was 2.6 % of a fresh server's create path. */
  private static String beyond(Duration horizon, Instant limit) {
    return "more than " + DurationText.format(horizon) + " ahead (herald.server.max-schedule-ahead); the latest accepted now is "
        + limit;
  }

  /**
   * The callback URL followed by its fail-over URLs ({@code fallbackUrls}, tried in order when it
   * fails), stored as one target: the URLs separated by spaces.
   */
  private String withFallbacks(ObjectNode o, String path, String url, NoticeDefinition d, Tenants.Tenant tenant) {
    JsonNode f = o.get("fallbackUrls");
    if (f == null || f.isNull()) {
      return url;
    }
    String field = child(path, "fallbackUrls");
    if (!f.isArray() || f.isEmpty() || f.size() > 4) {
      throw ApiException.invalid(field, "must be an array of 1 to 4 URLs, was " + JsonInput.kind(f));
    }
    StringBuilder target = new StringBuilder(url.strip());
    for (int i = 0; i < f.size(); i++) {
      JsonNode u = f.get(i);
      if (!u.isString()) {
        throw ApiException.invalid(index(field, i), "must be a string, was " + JsonInput.kind(u));
      }
      checkUrl(u.stringValue(), index(field, i));
      CallbackOrigins.check(d, tenant, u.stringValue(), index(field, i));
      target.append(' ').append(u.stringValue().strip());
    }
    if (target.length() > 2000) {
      throw ApiException.invalid(field, "callbackUrl and fallbackUrls must be at most 2000 characters together");
    }
    return target.toString();
  }

  /** The SSRF guard and URL syntax, before anything is written. */
  private void checkUrl(String url, String field) {
    if (url.isBlank() || url.length() > 2000 || url.strip().contains(" ")) {
      throw ApiException.invalid(field, "must be an http or https URL of at most 2000 characters");
    }
    try {
      http.validateTarget(url);
    } catch (InvalidInputException e) {
      throw ApiException.invalid(field, e.reason());
    }
  }

  /** A core field name of a batch item, as this API names it: {@code notices[i].callbackUrl}. */
  static String itemField(String field, boolean single) {
    String f = single && !field.startsWith("notices[") ? "notices[0]." + field : field;
    if (f.endsWith(".target")) {
      f = f.substring(0, f.length() - "target".length()) + "callbackUrl";
    }
    return f;
  }

  private static void collect(List<ApiException.FieldError> errors, ApiException e) {
    if (e.status() != 400) {
      throw e;
    }
    if (errors.size() < MAX_LISTED_ERRORS) {
      if (e.errors().isEmpty()) {
        errors.add(new ApiException.FieldError(e.field(), e.reason()));
      } else {
        errors.addAll(e.errors());
      }
    }
  }

  // ------------------------------------------------------------------------------------ edit

  private record Edit(UUID id, NoticeEdit edit) {}

  @PatchMapping
  ObjectNode edit(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = body(request);
    JsonInput.only(in, "", Set.of("notices"));
    ArrayNode items = JsonInput.batch(in, "", "notices", properties.getMaxBatch());
    List<Edit> edits = new ArrayList<>(items.size());
    List<ApiException.FieldError> errors = new ArrayList<>();
    Instant now = herald.clock().instant();
    for (int i = 0; i < items.size(); i++) {
      String path = index("notices", i);
      try {
        ObjectNode o = JsonInput.object(items.get(i), path);
        JsonInput.only(o, path, EDIT_FIELDS);
        UUID id = JsonInput.uuid(o.get("id"), child(path, "id"));
        String payload = o.has("payload") ? JsonInput.payload(o.get("payload"), child(path, "payload")) : null;
        Instant fireAt = JsonInput.instant(o, path, "fireAt");
        Duration delay = JsonInput.duration(o, path, "delay");
        if (fireAt != null && delay != null) {
          throw ApiException.invalid(child(path, "delay"), "give fireAt or delay, not both");
        }
        refuseBeyondHorizon(fireAt, delay, path);
        String url = JsonInput.text(o, path, "callbackUrl");
        if (url != null) {
          checkUrl(url, child(path, "callbackUrl"));
        }
        if (payload == null && fireAt == null && delay == null && url == null) {
          throw ApiException.invalid(path, "changes nothing: give payload, fireAt, delay or callbackUrl");
        }
        edits.add(new Edit(id, new NoticeEdit(payload, fireAt != null ? fireAt : delay != null ? now.plus(delay) : null,
            url)));
      } catch (ApiException e) {
        collect(errors, e);
      } catch (InvalidInputException e) {
        errors.add(new ApiException.FieldError(e.field(), e.reason()));
      }
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid(errors);
    }
    Set<UUID> hidden = scope.hidden(caller, edits.stream().map(Edit::id).toList());
    Batch batch = new Batch();
    for (int i = 0; i < edits.size(); i++) {
      Edit e = edits.get(i);
      String path = index("notices", i);
      batch.run(i, e.id(), child(path, "id"), path, () -> {
        if (hidden.contains(e.id())) {
          throw new NoticeNotFoundException(e.id());
        }
        if (e.edit().target() != null) {
          checkMove(e.id(), e.edit().target(), child(path, "callbackUrl"));
        }
        return view(herald.operations().edit(e.id(), e.edit()));
      });
    }
    audit(caller, "notices.edit", batch);
    return batch.out();
  }

  /** A signed notice's callbackUrl stays on its origin, and within the origins its definition allows. */
  private void checkMove(UUID id, String url, String field) {
    Notice n = herald.operations().find(id).orElseThrow(() -> new NoticeNotFoundException(id)).notice();
    NoticeDefinition d = herald.definitions().find(n.definition()).orElse(null);
    if (d != null) {
      CallbackOrigins.checkMove(d, n.target(), url, field);
    }
  }

  private void audit(Caller caller, String action, Batch batch) {
    if (batch.succeeded > 0) {
      audit.record(caller, caller.actingTenant(), action, batch.succeeded == 1 ? batch.firstDone : null,
          batch.succeeded + " notice(s): " + Views.bounded(String.join(", ", batch.done), 3500));
    }
  }

  // ------------------------------------------------------------------------------------ cancel, lookup

  @PostMapping("/cancel")
  ObjectNode cancelAll(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = body(request);
    JsonInput.only(in, "", Set.of("ids"));
    List<UUID> ids = JsonInput.ids(in, properties.getMaxBatch());
    Set<UUID> hidden = scope.hidden(caller, ids);
    Batch batch = new Batch();
    for (int i = 0; i < ids.size(); i++) {
      UUID id = ids.get(i);
      batch.run(i, id, index("ids", i), index("ids", i), () -> {
        if (hidden.contains(id)) {
          throw new NoticeNotFoundException(id);
        }
        return view(herald.operations().cancel(id));
      });
    }
    audit(caller, "notices.cancel", batch);
    return batch.out();
  }

  @PostMapping("/lookup")
  ObjectNode lookup(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = body(request);
    JsonInput.only(in, "", Set.of("ids", "attemptLog"));
    List<UUID> ids = JsonInput.ids(in, properties.getMaxBatch());
    boolean log = Boolean.TRUE.equals(JsonInput.bool(in, "", "attemptLog"));
    Set<UUID> hidden = scope.hidden(caller, ids);
    Batch batch = new Batch();
    for (int i = 0; i < ids.size(); i++) {
      UUID id = ids.get(i);
      batch.run(i, id, index("ids", i), index("ids", i), () -> {
        NoticeDetail d = hidden.contains(id) ? null : herald.operations().find(id).orElse(null);
        if (d == null) {
          throw new NoticeNotFoundException(id);
        }
        return log ? detail(d) : view(d.notice());
      });
    }
    return batch.out();
  }

  /** Per-item results of a batch: {@code status} 200 with the notice, or 400/404/409 with an error. */
  private static final class Batch {
    private final ObjectNode out = Views.object();
    private final ArrayNode results = out.putArray("results");
    private int succeeded;
    private int failed;
    private final List<String> done = new ArrayList<>();
    private String firstDone;

    interface Step {
      ObjectNode run();
    }

    /**
     * Runs one item's step.
     *
     * @param idField the path of the item's id, e.g. {@code ids[2]} or {@code notices[2].id}
     * @param itemPath the path of the item, for errors about its other fields
     */
    void run(int index, UUID id, String idField, String itemPath, Step step) {
      ObjectNode r = results.addObject();
      r.put("index", index);
      r.put("id", id.toString());
      try {
        ObjectNode notice = step.run();
        r.put("status", 200);
        r.set("notice", notice);
        succeeded++;
        done.add(id.toString());
        if (firstDone == null) {
          firstDone = id.toString();
        }
        return;
      } catch (NoticeNotFoundException e) {
        fail(r, 404, "not_found", idField, e.getMessage());
      } catch (IllegalTransitionException e) {
        fail(r, 409, "illegal_transition", idField, e.getMessage());
      } catch (InvalidInputException e) {
        String field = e.field().equals("edit") ? itemPath : itemField(child(itemPath, e.field()), false);
        fail(r, 400, "invalid_input", field, e.reason());
      } catch (ApiException e) {
        if (e.status() != 400 || e.field() == null) {
          throw e;
        }
        fail(r, 400, "invalid_input", e.field(), e.reason());
      }
      failed++;
    }

    private static void fail(ObjectNode r, int status, String error, String field, String reason) {
      r.put("status", status);
      ObjectNode e = r.putObject("error");
      e.put("error", error);
      e.put("field", field);
      e.put("reason", reason);
    }

    ObjectNode out() {
      out.put("succeeded", succeeded);
      out.put("failed", failed);
      return out;
    }
  }

  // ------------------------------------------------------------------------------------ search, detail

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

  /** A notice as the API shows it: keys as their tenant wrote them. */
  static ObjectNode view(Notice n) {
    ObjectNode o = Views.notice(n);
    if (n.idempotencyKey() != null) {
      o.put("idempotencyKey", TenantKeys.own(n.idempotencyKey()));
    }
    return o;
  }

  static ObjectNode detail(NoticeDetail d) {
    ObjectNode o = Views.detail(d);
    if (d.notice().idempotencyKey() != null) {
      o.put("idempotencyKey", TenantKeys.own(d.notice().idempotencyKey()));
    }
    return o;
  }

  // ------------------------------------------------------------------------------------ one notice

  @PostMapping("/{id}/cancel")
  ObjectNode cancel(@PathVariable("id") String id, HttpServletRequest request) {
    UUID uuid = visible(id, request);
    ObjectNode out = view(herald.operations().cancel(uuid));
    Caller caller = ApiFilter.caller(request);
    audit.record(caller, caller.actingTenant(), "notice.cancel", uuid.toString(), null);
    return out;
  }

  /**
   * Confirms with a token, or without one by the notice's confirm capability (sent to its receiver
   * in {@value ConfirmCapability#HEADER}): that confirms this notice and nothing else.
   */
  @PostMapping("/{id}/confirm")
  ObjectNode confirm(@PathVariable("id") String id,
      @RequestParam(name = ConfirmCapability.PARAMETER, required = false) String capability,
      HttpServletRequest request) {
    if (ApiFilter.caller(request) == null) {
      UUID uuid = JsonInput.uuid(id, "id");
      if (!this.capability.valid(uuid, capability)) {
        throw ApiException.of(401, "unauthorized", "the confirm capability is not valid for notice " + uuid);
      }
      return view(herald.operations().confirm(uuid));
    }
    return view(herald.operations().confirm(visible(id, request)));
  }

  @PostMapping("/{id}/resend")
  ObjectNode resend(@PathVariable("id") String id, HttpServletRequest request) {
    UUID uuid = visible(id, request);
    ObjectNode out = view(herald.operations().resend(uuid));
    Caller caller = ApiFilter.caller(request);
    audit.record(caller, caller.actingTenant(), "notice.resend", uuid.toString(), null);
    return out;
  }

  // ------------------------------------------------------------------------------------ recover

  @PostMapping("/recover")
  ObjectNode recover(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = body(request);
    JsonInput.only(in, "", Set.of("definition", "from", "to"));
    String definition = JsonInput.requiredText(in, "", "definition");
    Instant from = JsonInput.instant(in, "", "from");
    if (from == null) {
      throw ApiException.invalid("from", "is required: the start of the window in which the notices died");
    }
    Instant to = JsonInput.instant(in, "", "to");
    if (to == null) {
      to = herald.clock().instant();
    }
    if (!scope.seesDefinition(caller, definition) || herald.definitions().find(definition).isEmpty()) {
      throw ApiException.invalid("definition", "no definition named '" + definition + "'");
    }
    int n;
    if (scope.narrows(caller)) {
      n = 0;
      for (UUID id : tenantNotices.dead(definition, from, to, caller.tenant(), NoticeQuery.MAX_LIMIT * 10)) {
        try {
          herald.operations().resend(id);
          n++;
        } catch (IllegalTransitionException | NoticeNotFoundException e) {
          // changed meanwhile: not DEAD any more
        }
      }
    } else {
      n = herald.operations().recoverDead(definition, from, to);
    }
    audit.record(caller, caller.actingTenant(), "notices.recover", definition, n + " DEAD notice(s) that died"
        + " from " + from + " to " + to);
    ObjectNode out = Views.object();
    out.put("definition", definition);
    Views.time(out, "from", from);
    Views.time(out, "to", to);
    out.put("recovered", n);
    return out;
  }
}
