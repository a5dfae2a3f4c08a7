package dev.herald.server;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeHistory;
import dev.herald.NoticeNotFoundException;
import dev.herald.events.PublishedEvent;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Expunging personal data (admin): a finished notice's payload and attempt details, by id or by
 * idempotency key, and an event's payload with its finished notices. Ids, times, statuses and
 * outcomes stay; every expunge is in the audit log.
 */
@RestController
class ExpungeController {
  private final Herald herald;
  private final RequestBodies bodies;
  private final TenantScope scope;
  private final AuditLog audit;

  ExpungeController(Herald herald, RequestBodies bodies, TenantScope scope, AuditLog audit) {
    this.herald = herald;
    this.bodies = bodies;
    this.scope = scope;
    this.audit = audit;
  }

  @PostMapping("/api/v1/notices/{id}/expunge")
  @Requires(Permission.EXPUNGE)
  ObjectNode notice(@PathVariable("id") String id, HttpServletRequest request) {
    UUID uuid = JsonInput.uuid(id, "id");
    Caller caller = ApiFilter.caller(request);
    scope.requireNotice(caller, uuid);
    expunge(uuid);
    audit.record(caller, caller.actingTenant(), "notice.expunge", uuid.toString(), null);
    return expunged(List.of(uuid), List.of());
  }

  @PostMapping("/api/v1/notices/expunge")
  @Requires(Permission.EXPUNGE)
  ObjectNode noticeByKey(HttpServletRequest request) {
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", Set.of("definition", "idempotencyKey"));
    String definition = JsonInput.requiredText(in, "", "definition");
    String key = JsonInput.requiredText(in, "", "idempotencyKey");
    Caller caller = ApiFilter.caller(request);
    if (!scope.seesDefinition(caller, definition)) {
      throw ApiException.invalid("definition", "no definition '" + definition + "'");
    }
    UUID id;
    try {
      id = herald.history().expungeByKey(definition, TenantKeys.stored(caller.actingTenant(), key));
    } catch (InvalidInputException e) {
      throw ApiException.notFound("no notice of definition '" + definition + "' has idempotency key '" + key + "'");
    } catch (NoticeHistory.NotFinishedException e) {
      throw notFinished(e);
    }
    audit.record(caller, caller.actingTenant(), "notice.expunge", id.toString(), "idempotency key " + key);
    return expunged(List.of(id), List.of());
  }

  @PostMapping("/api/v1/events/{id}/expunge")
  @Requires(Permission.EXPUNGE)
  ObjectNode event(@PathVariable("id") String id, HttpServletRequest request) {
    UUID uuid = JsonInput.uuid(id, "id");
    return expungeEvent(request, uuid);
  }

  @PostMapping("/api/v1/events/expunge")
  @Requires(Permission.EXPUNGE)
  ObjectNode eventByKey(HttpServletRequest request) {
    ObjectNode in = bodies.object(request);
    JsonInput.only(in, "", Set.of("idempotencyKey"));
    String key = JsonInput.requiredText(in, "", "idempotencyKey");
    PublishedEvent e = herald.events().findByKey(EventTenant.of(request), key)
        .orElseThrow(() -> ApiException.notFound("no event has idempotency key '" + key + "'"));
    return expungeEvent(request, e.event().id());
  }

  private ObjectNode expungeEvent(HttpServletRequest request, UUID id) {
    NoticeHistory.EventExpunge done;
    try {
      done = herald.history().expungeEvent(EventTenant.of(request), id);
    } catch (InvalidInputException e) {
      throw ApiException.notFound("no event " + id);
    }
    Caller caller = ApiFilter.caller(request);
    audit.record(caller, caller.actingTenant(), "event.expunge", id.toString(), done.notFinished().isEmpty() ? null
        : done.notFinished().size() + " notices not finished, not expunged");
    return expunged(done.expunged(), done.notFinished());
  }

  private void expunge(UUID id) {
    try {
      herald.history().expunge(id);
    } catch (NoticeNotFoundException e) {
      throw ApiException.notFound("no notice " + id);
    } catch (NoticeHistory.NotFinishedException e) {
      throw notFinished(e);
    }
  }

  private static ApiException notFinished(NoticeHistory.NotFinishedException e) {
    return ApiException.conflict("not_finished", e.getMessage());
  }

  private static ObjectNode expunged(List<UUID> done, List<UUID> live) {
    ObjectNode out = Views.object();
    ArrayNode a = out.putArray("expunged");
    done.forEach(id -> a.add(id.toString()));
    ArrayNode b = out.putArray("notFinished");
    live.forEach(id -> b.add(id.toString()));
    return out;
  }
}
