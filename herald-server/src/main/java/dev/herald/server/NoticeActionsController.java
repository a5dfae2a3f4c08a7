package dev.herald.server;

import static dev.herald.server.JsonInput.child;
import static dev.herald.server.JsonInput.index;
import static dev.herald.server.NoticeViews.detail;
import static dev.herald.server.NoticeViews.view;

import dev.herald.Herald;
import dev.herald.IllegalTransitionException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeEdit;
import dev.herald.NoticeNotFoundException;
import dev.herald.NoticeQuery;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ObjectNode;

/**
 * What is done to notices that exist: edit, cancel (one or a batch), lookup, confirm, resend and bulk
 * recovery. Errors in a request itself refuse it whole; what depends on each notice's current state
 * (not found, already delivered) is reported per item.
 */
@RestController
@RequestMapping("/api/v1/notices")
@Requires(Permission.ACT_ON_NOTICES)
class NoticeActionsController {
  static final Set<String> EDIT_FIELDS = Set.of("id", "payload", "fireAt", "delay", "callbackUrl");

  private final Herald herald;
  private final ServerProperties properties;
  private final RequestBodies bodies;
  private final TenantScope scope;
  private final TenantNotices tenantNotices;
  private final AuditLog audit;
  private final ConfirmCapability capability;
  private final NoticeChecks checks;

  NoticeActionsController(Herald herald, ServerHttpChannel http, ServerProperties properties, RequestBodies bodies,
      TenantScope scope, TenantNotices tenantNotices, AuditLog audit, ConfirmCapability capability) {
    this.herald = herald;
    this.properties = properties;
    this.bodies = bodies;
    this.scope = scope;
    this.tenantNotices = tenantNotices;
    this.audit = audit;
    this.capability = capability;
    this.checks = new NoticeChecks(herald, http.http(), properties);
  }

  private record Edit(UUID id, NoticeEdit edit) {}

  @PatchMapping
  ObjectNode edit(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    Instant now = herald.clock().instant();
    List<Edit> edits = NoticeChecks.readItems(bodies.object(request), properties.getMaxBatch(), (item, path) -> {
      ObjectNode o = JsonInput.object(item, path);
      JsonInput.only(o, path, EDIT_FIELDS);
      UUID id = JsonInput.uuid(o.get("id"), child(path, "id"));
      String payload = o.has("payload") ? JsonInput.payload(o.get("payload"), child(path, "payload")).text() : null;
      Instant fireAt = JsonInput.instant(o, path, "fireAt");
      Duration delay = JsonInput.duration(o, path, "delay");
      if (fireAt != null && delay != null) {
        throw ApiException.invalid(child(path, "delay"), "give fireAt or delay, not both");
      }
      checks.refuseBeyondHorizon(fireAt, delay, path);
      String url = JsonInput.text(o, path, "callbackUrl");
      if (url != null) {
        checks.checkUrl(url, child(path, "callbackUrl"));
      }
      if (payload == null && fireAt == null && delay == null && url == null) {
        throw ApiException.invalid(path, "changes nothing: give payload, fireAt, delay or callbackUrl");
      }
      return new Edit(id, new NoticeEdit(payload, fireAt != null ? fireAt : delay != null ? now.plus(delay) : null,
          url));
    });
    Set<UUID> hidden = scope.hidden(caller, edits.stream().map(Edit::id).toList());
    NoticeBatch batch = new NoticeBatch();
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
    batch.audit(audit, caller, "notices.edit");
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

  // ------------------------------------------------------------------------------------ cancel, lookup

  @PostMapping("/cancel")
  ObjectNode cancelAll(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", Set.of("ids"));
    List<UUID> ids = JsonInput.ids(in, properties.getMaxBatch());
    Set<UUID> hidden = scope.hidden(caller, ids);
    NoticeBatch batch = new NoticeBatch();
    for (int i = 0; i < ids.size(); i++) {
      UUID id = ids.get(i);
      batch.run(i, id, index("ids", i), index("ids", i), () -> {
        if (hidden.contains(id)) {
          throw new NoticeNotFoundException(id);
        }
        return view(herald.operations().cancel(id));
      });
    }
    batch.audit(audit, caller, "notices.cancel");
    return batch.out();
  }

  @PostMapping("/lookup")
  @Requires(Permission.READ)
  ObjectNode lookup(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", Set.of("ids", "attemptLog"));
    List<UUID> ids = JsonInput.ids(in, properties.getMaxBatch());
    boolean log = Boolean.TRUE.equals(JsonInput.bool(in, "", "attemptLog"));
    Set<UUID> hidden = scope.hidden(caller, ids);
    NoticeBatch batch = new NoticeBatch();
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

  /** The id, if the caller sees that notice; else 404 exactly as for a notice that does not exist. */
  private UUID visible(String id, HttpServletRequest request) {
    UUID uuid = JsonInput.uuid(id, "id");
    scope.requireNotice(ApiFilter.caller(request), uuid);
    return uuid;
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
    ObjectNode in = bodies.object(request);
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
