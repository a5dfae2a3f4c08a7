package dev.herald.server;

import dev.herald.AlertPolicy;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.Ordering;
import dev.herald.schedule.RetrySchedule;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.node.ObjectNode;

/**
 * Definitions: named kinds of notices, where they go and how they are retried. Reading is open to
 * every token; changing needs an admin token. Option values that are secrets (e.g. {@code secrets},
 * the webhook signing keys) are write-only: every response shows {@value Views#MASK}, and sending
 * that mask back in an update keeps the stored value.
 */
@RestController
@RequestMapping("/api/v1/definitions")
@Requires(Permission.READ)
class DefinitionsController {
  static final Set<String> FIELDS = Set.of("name", "channel", "target", "retry", "maxAttempts", "maxInterval", "alert",
      "confirmRequired", "confirmTimeout", "description", "options", "ordering");
  private static final ApiResource DEFINITIONS = new ApiResource("name", "/api/v1/definitions", "definition",
      "no definition named", "a definition cannot be renamed");

  private final Herald herald;
  private final ServerProperties properties;
  private final RequestBodies bodies;
  private final TenantScope scope;
  private final DefinitionSecrets secrets;
  private final AlertTargets alertTargets;
  private final AuditLog audit;

  DefinitionsController(Herald herald, ServerProperties properties, RequestBodies bodies, TenantScope scope,
      DefinitionSecrets secrets, AlertTargets alertTargets, AuditLog audit) {
    this.herald = herald;
    this.properties = properties;
    this.bodies = bodies;
    this.scope = scope;
    this.secrets = secrets;
    this.alertTargets = alertTargets;
    this.audit = audit;
  }

  @GetMapping
  ObjectNode list(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    return ApiResource.items(scope.definitions(caller, herald), d -> view(d, caller));
  }

  @GetMapping("/{name}")
  ObjectNode get(@PathVariable("name") String name, HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    return view(require(name, caller), caller);
  }

  @PostMapping
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<ObjectNode> create(HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = bodies.object(request);
    String name = JsonInput.requiredText(in, "", "name");
    scope.checkNewDefinitionName(caller, name);
    DEFINITIONS.refuseTaken(herald.definitions().find(name).isPresent(), name);
    NoticeDefinition saved = save(build(in, name, null));
    audit.record(caller, scope.tenants().ownerOf(name), "definition.create", name, summary(saved));
    return DEFINITIONS.created(saved.name(), view(saved, caller));
  }

  @PutMapping("/{name}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ObjectNode update(@PathVariable("name") String name, HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    ObjectNode in = bodies.object(request);
    NoticeDefinition existing = requireChangeable(name, caller);
    DEFINITIONS.refuseRename(in, name);
    NoticeDefinition saved = save(build(in, name, existing));
    audit.record(caller, scope.tenants().ownerOf(name), "definition.update", name, summary(saved));
    return view(saved, caller);
  }

  @DeleteMapping("/{name}")
  @Requires(Permission.MANAGE_DEFINITIONS)
  ResponseEntity<Void> delete(@PathVariable("name") String name, HttpServletRequest request) {
    Caller caller = ApiFilter.caller(request);
    requireChangeable(name, caller);
    if (name.equals(properties.getCallbackDefinition())) {
      throw ApiException.conflict("built_in", "definition '" + name + "' is built in: notices that give only a"
          + " callbackUrl use it. Change it with PUT instead.");
    }
    if (dev.herald.server.alerts.AlertService.isInternal(name)) {
      throw ApiException.conflict("built_in", "definition '" + name + "' is built in: alerts are sent as its notices,"
          + " so without it no alert would go out. Change it with PUT instead.");
    }
    herald.definitions().delete(name);
    scope.tenants().forgetDefinition(name);
    audit.record(caller, scope.tenants().ownerOf(name), "definition.delete", name, null);
    return ResponseEntity.noContent().build();
  }

  /** The definition, if the caller sees it; another tenant's answers 404 as a missing one. */
  private NoticeDefinition require(String name, Caller caller) {
    return DEFINITIONS.found(herald.definitions().find(name).filter(d -> scope.seesDefinition(caller, name)), name);
  }

  private NoticeDefinition requireChangeable(String name, Caller caller) {
    NoticeDefinition d = require(name, caller);
    if (!scope.mayChangeDefinition(caller, name)) {
      throw ApiException.forbidden("definition '" + name + "' belongs to tenant " + scope.tenants().ownerOf(name)
          + ", which granted it to yours: its admins change it");
    }
    return d;
  }

  private ObjectNode view(NoticeDefinition d, Caller caller) {
    ObjectNode o = Views.definition(d, d.name().equals(properties.getCallbackDefinition()));
    if (!Access.may(caller, Permission.READ_TARGETS)) {
      Views.maskUrls(o); // URLs often carry credentials (?token=...): clients see where, not with what
    }
    o.put("tenant", scope.tenants().ownerOf(d.name()));
    return o;
  }

  private static String summary(NoticeDefinition d) {
    return "channel " + d.channel() + ", target " + (d.perNoticeTarget() ? "each notice's own" : UrlMasking.mask(
        d.target())) + ", retry " + d.retrySchedule().text()
        + ", options " + d.options().keySet();
  }

  private NoticeDefinition save(NoticeDefinition d) {
    try {
      alertTargets.check(d);
      return herald.definitions().save(secrets.seal(d));
    } catch (InvalidInputException e) {
      throw ApiException.invalid(apiField(e.field()), e.reason() + settingHint(e, d.channel()));
    }
  }

  /** For a channel the server has but is not configured, the setting that turns it on. */
  private static String settingHint(InvalidInputException e, String channel) {
    if (!e.field().equals("channel") || !e.reason().startsWith("no channel named")) {
      return "";
    }
    return switch (channel) {
      case "mail" -> " (set herald.mail.host and herald.mail.from to turn the mail channel on)";
      case "amqp" -> " (set herald.amqp.brokers.<name>=amqp://... to turn the AMQP channel on)";
      case "kafka" -> " (set herald.kafka.bootstrap-servers to turn the Kafka channel on)";
      default -> "";
    };
  }

  /**
   * Reads a whole definition (a PUT replaces every field; absent ones take their defaults). With
   * {@code existing}, an option sent as the mask keeps its stored value.
   */
  private static NoticeDefinition build(ObjectNode in, String name, NoticeDefinition existing) {
    JsonInput.only(in, "", FIELDS);
    try {
      String channel = JsonInput.text(in, "", "channel");
      if (channel == null) {
        channel = "http";
      }
      if (channel.equals(NoticeDefinition.LOCAL_CHANNEL)) {
        throw ApiException.invalid("channel", "the server has no in-process handlers; use http, mail, amqp or kafka");
      }
      String target = JsonInput.text(in, "", "target");
      NoticeDefinition.Builder b = NoticeDefinition.builder(name); // no target: each notice gives its own URL
      if (target == null) {
        b.perNoticeTarget(channel);
      } else {
        b.channel(channel, target);
      }
      String retry = JsonInput.text(in, "", "retry");
      if (retry != null) {
        b.retry(RetrySchedule.parse(retry, "retry"));
      }
      Integer maxAttempts = JsonInput.integer(in, "", "maxAttempts");
      if (maxAttempts != null) {
        b.maxAttempts(maxAttempts);
      }
      Duration maxInterval = JsonInput.duration(in, "", "maxInterval");
      if (maxInterval != null) {
        b.maxInterval(maxInterval);
      }
      String alert = JsonInput.text(in, "", "alert");
      if (alert != null) {
        b.alert(AlertPolicy.parse(alert));
      }
      Boolean confirmRequired = JsonInput.bool(in, "", "confirmRequired");
      if (confirmRequired != null) {
        b.confirmRequired(confirmRequired);
      }
      Duration confirmTimeout = JsonInput.duration(in, "", "confirmTimeout");
      if (confirmTimeout != null) {
        b.confirmTimeout(confirmTimeout);
      }
      b.description(JsonInput.text(in, "", "description"));
      b.ordered(Ordering.parse(JsonInput.text(in, "", "ordering")));
      Map<String, String> options = JsonInput.stringMap(in, "", "options");
      for (Map.Entry<String, String> e : (options == null ? Map.<String, String>of() : options).entrySet()) {
        String value = e.getValue();
        if (Views.MASK.equals(value)) {
          String stored = existing == null ? null : existing.options().get(e.getKey());
          if (stored == null) {
            throw ApiException.invalid("options." + e.getKey(),
                "send the value itself; " + Views.MASK + " only stands for a value already stored");
          }
          value = stored;
        }
        b.option(e.getKey(), value);
      }
      return b.build();
    } catch (InvalidInputException e) {
      throw ApiException.invalid(apiField(e.field()), e.reason());
    }
  }

  /** The core's field names as this API names them. */
  static String apiField(String field) {
    if (field.startsWith("retrySchedule")) {
      return "retry";
    }
    if (field.startsWith("alertPolicy")) {
      return "alert";
    }
    return field;
  }

  /** The built-in definition of direct callbacks, created at the first start and left alone afterwards. */
  static NoticeDefinition callbackDefinition(ServerProperties p) {
    return NoticeDefinition.builder(p.getCallbackDefinition())
        .perNoticeTarget("http")
        .retry(RetrySchedule.parse(p.getCallbackRetry(), "herald.server.callback-retry"))
        .maxAttempts(p.getCallbackMaxAttempts())
        .description("Direct callbacks: notices that give a callbackUrl and no definition (document 002).")
        .build();
  }
}
