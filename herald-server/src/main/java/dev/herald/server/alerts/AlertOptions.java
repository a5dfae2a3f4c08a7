package dev.herald.server.alerts;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/** A definition's {@code alert.*} options: where its alerts go, and whether a recovery is told. */
public final class AlertOptions {
  static final String EMAIL = "alert.email";
  static final String WEBHOOK = "alert.webhook";
  static final String RECOVERED = "alert.recovered";
  /** Every {@code alert.*} option the server reads. */
  static final List<String> KNOWN = List.of(EMAIL, WEBHOOK, RECOVERED);

  private AlertOptions() {}

  /**
   * Refuses an {@code alert.*} option the server does not read (a misspelt one would be stored and
   * silently ignored, and the alert would go nowhere), and an {@code alert.recovered} that is not a
   * boolean. Other options belong to the channel, which checks them.
   *
   * @throws InvalidInputException naming {@code options.<key>}
   */
  public static void refuseUnknown(NoticeDefinition d) {
    for (String key : new TreeSet<>(d.options().keySet())) {
      if (key.startsWith("alert.") && !KNOWN.contains(key)) {
        throw new InvalidInputException("options." + key, "unknown alert option; the known ones are "
            + String.join(", ", KNOWN));
      }
    }
    String recovered = d.option(RECOVERED, null);
    if (recovered != null && !List.of("true", "false").contains(recovered.strip().toLowerCase(Locale.ROOT))) {
      throw new InvalidInputException("options." + RECOVERED, "must be true or false, was '" + recovered + "'");
    }
  }

  static boolean recovered(NoticeDefinition d) {
    return Boolean.parseBoolean(d.option(RECOVERED, "false").strip());
  }
}
