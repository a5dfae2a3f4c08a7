package dev.herald.server.console;

import jakarta.servlet.http.HttpSession;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.web.util.WebUtils;

/**
 * The notices a bulk action's confirmation counted, kept in the user's session until the action is
 * confirmed: the action then touches exactly those, not what the search matches a moment later (a
 * notice gone DEAD meanwhile is not swept in). A selection is used once; a session keeps the last few.
 */
final class BulkSelections {
  /** Selections kept per session; confirming an old page after many newer ones asks for a new search. */
  static final int KEPT = 5;
  private static final String ATTRIBUTE = BulkSelections.class.getName();
  private static final SecureRandom RANDOM = new SecureRandom();

  private BulkSelections() {}

  /** Keeps {@code ids} for one confirmation; returns the token the confirming form sends back. */
  static String remember(HttpSession session, List<UUID> ids) {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    String token = HexFormat.of().formatHex(bytes);
    synchronized (WebUtils.getSessionMutex(session)) {
      Map<String, List<UUID>> all = selections(session);
      all.put(token, List.copyOf(ids));
      while (all.size() > KEPT) {
        all.remove(all.keySet().iterator().next());
      }
      session.setAttribute(ATTRIBUTE, all);
    }
    return token;
  }

  /** The selection of {@code token}, taken out of the session; empty if unknown or used already. */
  static Optional<List<UUID>> take(HttpSession session, String token) {
    if (token == null) {
      return Optional.empty();
    }
    synchronized (WebUtils.getSessionMutex(session)) {
      Map<String, List<UUID>> all = selections(session);
      List<UUID> ids = all.remove(token);
      session.setAttribute(ATTRIBUTE, all);
      return Optional.ofNullable(ids);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, List<UUID>> selections(HttpSession session) {
    Object o = session.getAttribute(ATTRIBUTE);
    return o instanceof LinkedHashMap<?, ?> m ? (Map<String, List<UUID>>) m : new LinkedHashMap<>();
  }
}
