package dev.herald.intake;

import dev.herald.InvalidInputException;
import dev.herald.NoticeRequest;
import dev.herald.internal.JsonText;
import dev.herald.json.JsonTree;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Set;

/**
 * How a message's body becomes a notice. Either {@link #payload(String)}: the whole body is the
 * JSON payload of a notice of one definition; or {@link #envelope()}: the body is a JSON object
 * {@code {"definition": "...", "payload": ..., "fireAt": "2026-01-01T10:00:00Z", "idempotencyKey":
 * "...", "description": "..."}} of which only {@code definition} and {@code payload} are required.
 *
 * <p>The idempotency key is the envelope's, else the message's own id (AMQP {@code message-id},
 * Kafka {@code topic-partition@offset}), so a message delivered twice makes one notice.
 */
public final class IntakeFormat {
  private static final Set<String> ENVELOPE_FIELDS =
      Set.of("definition", "payload", "fireAt", "idempotencyKey", "description");

  private final String definition;

  private IntakeFormat(String definition) {
    this.definition = definition;
  }

  /** Every body is the payload of a notice of {@code definition}. */
  public static IntakeFormat payload(String definition) {
    if (definition == null || definition.isBlank()) {
      throw new InvalidInputException("definition", "must name the definition of the notices taken in");
    }
    return new IntakeFormat(definition);
  }

  /** Every body is an envelope naming its definition. */
  public static IntakeFormat envelope() {
    return new IntakeFormat(null);
  }

  /** The definition of every notice, or null for envelopes. */
  public String definition() {
    return definition;
  }

  /**
   * The notice a message asks for.
   *
   * @param messageId the message's own id, the idempotency key when the envelope gives none; may be null
   * @throws MalformedMessageException saying what is wrong (not UTF-8, not JSON, a field missing)
   */
  public NoticeRequest decode(byte[] body, String messageId) {
    String text = utf8(body);
    if (definition != null) {
      requireJson(text, "body");
      return withKey(NoticeRequest.of(definition, text), null, messageId);
    }
    Map<String, String> members;
    try {
      members = JsonTree.rawMembers(text, "body");
    } catch (InvalidInputException e) {
      throw new MalformedMessageException("envelope: " + e.getMessage());
    }
    for (String k : members.keySet()) {
      if (!ENVELOPE_FIELDS.contains(k)) {
        throw new MalformedMessageException("envelope: unknown field '" + k + "'; fields are " + ENVELOPE_FIELDS);
      }
    }
    String def = string(members, "definition", true);
    String payload = members.get("payload");
    if (payload == null) {
      throw new MalformedMessageException("envelope: 'payload' is required (any JSON value)");
    }
    NoticeRequest r = NoticeRequest.of(def, payload).description(string(members, "description", false));
    String fireAt = string(members, "fireAt", false);
    if (fireAt != null) {
      try {
        r = r.fireAt(Instant.parse(fireAt));
      } catch (DateTimeParseException e) {
        throw new MalformedMessageException("envelope: 'fireAt' must be an ISO-8601 instant such as "
            + "2026-01-01T10:00:00Z, was '" + fireAt + "'");
      }
    }
    return withKey(r, string(members, "idempotencyKey", false), messageId);
  }

  private static NoticeRequest withKey(NoticeRequest r, String key, String messageId) {
    String k = key != null ? key : messageId;
    return k == null || k.isBlank() ? r : r.idempotencyKey(k);
  }

  private static String string(Map<String, String> members, String field, boolean required) {
    String raw = members.get(field);
    if (raw == null || raw.equals("null")) {
      if (required) {
        throw new MalformedMessageException("envelope: '" + field + "' is required");
      }
      return null;
    }
    if (!raw.startsWith("\"")) {
      throw new MalformedMessageException("envelope: '" + field + "' must be a string, was " + abbreviate(raw));
    }
    return (String) JsonTree.parse(raw, field);
  }

  private static void requireJson(String text, String field) {
    try {
      JsonText.requireValid(text, field);
    } catch (InvalidInputException e) {
      throw new MalformedMessageException(e.getMessage());
    }
  }

  private static String utf8(byte[] body) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(body)).toString();
    } catch (CharacterCodingException e) {
      throw new MalformedMessageException("body is not UTF-8 text");
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
