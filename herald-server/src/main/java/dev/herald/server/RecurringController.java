package dev.herald.server;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.recurring.RecurringSchedule;
import dev.herald.recurring.RecurringSchedule.MissedSlots;
import dev.herald.schedule.DurationText;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Set;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Recurring notices: schedules of the caller's tenant that make one notice of a definition it sees
 * per slot (a cron expression in a time zone, or a fixed rate). Reading is open to every token;
 * creating, changing, pausing and deleting need an admin token.
 */
@RestController
@RequestMapping("/api/v1/recurring")
@Requires(Permission.READ)
class RecurringController {
  static final Set<String> FIELDS = Set.of("name", "description", "definition", "payload", "cron", "zone", "every",
      "anchor", "missed", "paused");
  private static final ApiResource SCHEDULES = new ApiResource("name", "/api/v1/recurring", "recurring schedule",
      "no recurring schedule", "a schedule cannot be renamed");

  private final Herald herald;
  private final RequestBodies bodies;
  private final TenantScope scope;

  RecurringController(Herald herald, RequestBodies bodies, TenantScope scope) {
    this.herald = herald;
    this.bodies = bodies;
    this.scope = scope;
  }

  @GetMapping
  ObjectNode list(HttpServletRequest request) {
    return ApiResource.items(herald.recurring().list(EventTenant.of(request)), RecurringController::view);
  }

  @GetMapping("/{name}")
  ObjectNode get(@PathVariable("name") String name, HttpServletRequest request) {
    RecurringSchedule s = require(request, name);
    ObjectNode out = view(s);
    ArrayNode slots = out.putArray("recentSlots");
    herald.recurring().slots(s.tenant(), s.name(), 20).forEach(slot -> {
      ObjectNode o = slots.addObject();
      o.put("slot", slot.slot().toString());
      o.put("noticeId", slot.noticeId().toString());
      o.put("firedAt", slot.firedAt().toString());
    });
    return out;
  }

  @PostMapping
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<ObjectNode> create(HttpServletRequest request) {
    ObjectNode in = bodies.object(request, FIELDS);
    String name = JsonInput.requiredText(in, "", "name");
    SCHEDULES.refuseTaken(herald.recurring().find(EventTenant.of(request), name).isPresent(), name);
    RecurringSchedule saved = save(request, build(in, name, request));
    return SCHEDULES.created(saved.name(), view(saved));
  }

  @PutMapping("/{name}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode update(@PathVariable("name") String name, HttpServletRequest request) {
    ObjectNode in = bodies.object(request, FIELDS);
    require(request, name);
    SCHEDULES.refuseRename(in, name);
    return view(save(request, build(in, name, request)));
  }

  @DeleteMapping("/{name}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<Void> delete(@PathVariable("name") String name, HttpServletRequest request) {
    require(request, name);
    herald.recurring().delete(EventTenant.of(request), name);
    return ResponseEntity.noContent().build();
  }

  @PostMapping("/{name}/pause")
  @Requires(Permission.ACT_ON_SCHEDULES)
  ObjectNode pause(@PathVariable("name") String name, HttpServletRequest request) {
    require(request, name);
    return view(herald.recurring().pause(EventTenant.of(request), name));
  }

  @PostMapping("/{name}/resume")
  @Requires(Permission.ACT_ON_SCHEDULES)
  ObjectNode resume(@PathVariable("name") String name, HttpServletRequest request) {
    require(request, name);
    return view(herald.recurring().resume(EventTenant.of(request), name));
  }

  private RecurringSchedule require(HttpServletRequest request, String name) {
    return SCHEDULES.found(herald.recurring().find(EventTenant.of(request), name), name);
  }

  private RecurringSchedule save(HttpServletRequest request, RecurringSchedule s) {
    // a definition the caller does not see answers as one that does not exist
    if (!scope.seesDefinition(ApiFilter.caller(request), s.definition())) {
      throw ApiException.invalid("definition", "no definition '" + s.definition() + "'");
    }
    try {
      return herald.recurring().save(s);
    } catch (InvalidInputException e) {
      throw ApiException.invalid(e.field(), e.reason());
    }
  }

  /** Reads a whole schedule (a PUT replaces every field; absent ones take their defaults). */
  private static RecurringSchedule build(ObjectNode in, String name, HttpServletRequest request) {
    try {
      RecurringSchedule.Builder b = RecurringSchedule.builder(name).tenant(EventTenant.of(request))
          .description(JsonInput.text(in, "", "description"))
          .definition(JsonInput.requiredText(in, "", "definition"));
      JsonNode payload = in.get("payload");
      if (payload != null && !payload.isNull()) {
        b.payload(JsonInput.MAPPER.writeValueAsString(payload));
      }
      String cron = JsonInput.text(in, "", "cron");
      String every = JsonInput.text(in, "", "every");
      if (cron != null && every != null) {
        throw ApiException.invalid("every", "give either cron (with zone) or every, not both");
      }
      if (cron != null) {
        b.cron(cron, RecurringSchedule.zone(JsonInput.text(in, "", "zone")));
        if (JsonInput.has(in, "anchor")) {
          throw ApiException.invalid("anchor", "goes with every, not cron");
        }
      } else if (every != null) {
        if (JsonInput.has(in, "zone")) {
          throw ApiException.invalid("zone", "goes with cron, not every");
        }
        Duration rate = DurationText.parse(every, "every");
        Instant anchor = JsonInput.instant(in, "", "anchor");
        b.every(rate, anchor);
      } else {
        throw ApiException.invalid("cron", "is required: give cron (e.g. \"30 6 * * MON-FRI\", with zone) or every"
            + " (e.g. \"15m\")");
      }
      String missed = JsonInput.text(in, "", "missed");
      if (missed != null) {
        b.missed(missed(missed));
      }
      Boolean paused = JsonInput.bool(in, "", "paused");
      b.paused(paused != null && paused);
      return b.build();
    } catch (InvalidInputException e) {
      throw ApiException.invalid(e.field(), e.reason());
    }
  }

  private static MissedSlots missed(String text) {
    try {
      return MissedSlots.valueOf(text.strip().toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid("missed", "must be fire-once, fire-all or skip, was '" + text + "'");
    }
  }

  static String missedText(MissedSlots m) {
    return m.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static ObjectNode view(RecurringSchedule s) {
    ObjectNode o = Views.object();
    o.put("name", s.name());
    o.put("description", s.description());
    o.put("definition", s.definition());
    try {
      o.set("payload", JsonInput.MAPPER.readTree(s.payload()));
    } catch (RuntimeException e) {
      o.put("payload", s.payload());
    }
    o.put("cron", s.cron());
    o.put("zone", s.cron() == null ? null : s.zone().getId());
    o.put("every", s.every() == null ? null : DurationText.format(s.every()));
    o.put("anchor", s.anchor() == null ? null : s.anchor().toString());
    o.put("missed", missedText(s.missed()));
    o.put("paused", s.paused());
    o.put("nextSlot", s.paused() || s.nextSlot() == null ? null : s.nextSlot().toString());
    o.put("lastSlot", s.lastSlot() == null ? null : s.lastSlot().toString());
    o.put("skippedSlots", s.skippedSlots());
    o.put("lastError", s.lastError());
    o.put("createdAt", s.createdAt() == null ? null : s.createdAt().toString());
    o.put("updatedAt", s.updatedAt() == null ? null : s.updatedAt().toString());
    return o;
  }
}
