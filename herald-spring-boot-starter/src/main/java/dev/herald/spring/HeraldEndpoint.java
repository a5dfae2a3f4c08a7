package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.HeraldException;
import dev.herald.IllegalTransitionException;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeNotFoundException;
import dev.herald.NoticeOperations;
import dev.herald.NoticeQuery;
import dev.herald.NoticeStatus;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * {@code /actuator/herald}: Herald's operator actions as an Actuator endpoint, exposed and secured
 * like any other ({@code management.endpoints.web.exposure.include=herald}; Spring Security's {@code
 * EndpointRequest}). Reading is allowed by default; the actions need {@code
 * management.endpoint.herald.access=unrestricted}.
 *
 * <ul>
 *   <li>{@code GET /actuator/herald?definition=&status=&limit=}: newest notices, live and archived
 *   <li>{@code GET /actuator/herald/{id}}: a notice with its attempt log
 *   <li>{@code POST /actuator/herald/{id}} with {@code {"action": "resend" | "cancel" | "confirm"}}
 *   <li>{@code POST /actuator/herald} with {@code {"definition": "...", "from": ISO-8601, "to": ISO-8601}}:
 *       re-queue the DEAD notices of a definition that died in [from, to) (default: all until now)
 * </ul>
 *
 * <p>An unknown notice is 404, an action its status does not allow 409, bad input 400 with the
 * field at fault.
 */
@WebEndpoint(id = "herald", defaultAccess = Access.READ_ONLY)
public class HeraldEndpoint {
  private static final int CONFLICT = 409;
  private final Herald herald;

  public HeraldEndpoint(Herald herald) {
    this.herald = herald;
  }

  private NoticeOperations operations() {
    return herald.operations();
  }

  /** The newest notices, optionally of one definition and status; up to {@code limit} (default 50). */
  @ReadOperation
  public WebEndpointResponse<Object> notices(@Nullable String definition, @Nullable String status,
      @Nullable Integer limit) {
    return respond(() -> {
      NoticeQuery q = NoticeQuery.all().page(0, limit == null ? 50 : limit);
      if (definition != null) {
        q = q.definition(definition);
      }
      if (status != null) {
        q = q.statuses(parseStatus(status));
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("nodeId", herald.settings().nodeId());
      out.put("running", herald.isRunning());
      out.put("definitions", herald.definitions().list().stream().map(NoticeDefinition::name).toList());
      var page = operations().query(q);
      out.put("notices", page.items());
      out.put("hasMore", page.hasMore());
      return out;
    });
  }

  /** One notice with its attempt log. */
  @ReadOperation
  public WebEndpointResponse<Object> notice(@Selector String id) {
    return respond(() -> {
      UUID uuid = parseId(id);
      return operations().find(uuid).orElseThrow(() -> new NoticeNotFoundException(uuid));
    });
  }

  /** Resends, cancels or confirms a notice; returns it after the action. */
  @WriteOperation
  public WebEndpointResponse<Object> act(@Selector String id, String action) {
    return respond(() -> {
      UUID uuid = parseId(id);
      Notice after = switch (action.toLowerCase(Locale.ROOT)) {
        case "resend" -> operations().resend(uuid);
        case "cancel" -> operations().cancel(uuid);
        case "confirm" -> operations().confirm(uuid);
        default -> throw new InvalidInputException("action",
            "must be one of resend, cancel, confirm, was '" + action + "'");
      };
      return after;
    });
  }

  /** Re-queues the DEAD notices of a definition that died in [from, to); returns how many. */
  @WriteOperation
  public WebEndpointResponse<Object> recover(String definition, @Nullable String from, @Nullable String to) {
    return respond(() -> {
      if (herald.definitions().find(definition).isEmpty()) {
        throw KnownDefinitions.unknown(herald, "definition", definition, null);
      }
      Instant start = from == null ? Instant.EPOCH : parseInstant(from, "from");
      Instant end = to == null ? herald.clock().instant().plusMillis(1) : parseInstant(to, "to");
      int recovered = operations().recoverDead(definition, start, end);
      return Map.of("definition", definition, "recovered", recovered);
    });
  }

  private static WebEndpointResponse<Object> respond(Supplier<Object> action) {
    try {
      return new WebEndpointResponse<>(action.get());
    } catch (NoticeNotFoundException e) {
      return error(WebEndpointResponse.STATUS_NOT_FOUND, e);
    } catch (IllegalTransitionException e) {
      return error(CONFLICT, e);
    } catch (InvalidInputException e) {
      return error(WebEndpointResponse.STATUS_BAD_REQUEST, e);
    }
  }

  private static WebEndpointResponse<Object> error(int status, HeraldException e) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", status);
    body.put("error", e.getMessage());
    if (e instanceof InvalidInputException invalid) {
      body.put("field", invalid.field());
    }
    return new WebEndpointResponse<>(body, status);
  }

  private static UUID parseId(String id) {
    try {
      return UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("id", "must be a notice id (a UUID), was '" + id + "'");
    }
  }

  private static NoticeStatus parseStatus(String status) {
    try {
      return NoticeStatus.valueOf(status.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("status", "must be one of " + List.of(NoticeStatus.values()) + ", was '"
          + status + "'");
    }
  }

  private static Instant parseInstant(String text, String field) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new InvalidInputException(field, "must be an ISO-8601 instant such as 2026-01-31T12:00:00Z, was '"
          + text + "'");
    }
  }
}
