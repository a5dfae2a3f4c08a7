package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import dev.herald.Targets;
import dev.herald.spi.Delivery;
import java.util.ArrayList;
import java.util.List;

/**
 * Document 003's fail-over between receivers: a notice's targets in order, the first one first. A
 * target is written as one URL; a list as URLs separated by spaces ({@link Targets}, the one codec):
 * a notice's own {@code "https://a.example/x https://b.example/x"}, or a definition's target followed
 * by its option {@code fallback-targets}. The notice goes to the next target after {@code
 * failover-after} failed attempts on the current one, and at once while the current one's endpoint
 * has its circuit open or is disabled.
 */
final class FailoverTargets {
  static final int MAX_TARGETS = Targets.MAX;

  private FailoverTargets() {}

  /**
   * Parses a target text: one URL, or several separated by spaces ({@link Targets}' form).
   *
   * @throws InvalidInputException naming {@code field}
   */
  static List<Target> parse(String text, String field) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException(field, "must be an absolute http or https URL, was blank");
    }
    List<String> urls = Targets.parse(text, field).list();
    List<Target> out = new ArrayList<>(urls.size());
    for (String url : urls) {
      try {
        out.add(Target.parse(url));
      } catch (InvalidInputException e) {
        throw new InvalidInputException(field, urls.size() == 1 ? e.reason() : "'" + text.strip() + "' is not a URL,"
            + " nor fail-over URLs separated by spaces: " + e.reason());
      }
    }
    return out;
  }

  /** The targets of a delivery, in order: the notice's own list, else the definition's target and fallbacks. */
  static List<Target> of(Delivery d, HttpOptions o) {
    if (d.notice().target() != null) {
      return parse(d.notice().target(), "target");
    }
    if (d.definition().perNoticeTarget()) {
      throw new InvalidInputException("target", "the notice gives none, and definition '" + d.definition().name()
          + "' has none of its own");
    }
    List<Target> targets = new ArrayList<>(parse(d.definition().target(), "target"));
    targets.addAll(o.fallbackTargets());
    return targets.size() > MAX_TARGETS ? targets.subList(0, MAX_TARGETS) : targets;
  }

  /**
   * Which target takes this attempt: the one its failed attempts have moved it to ({@code
   * failoverAfter} per target), or a later one while that one's endpoint is open or disabled. When
   * every later one is too, the one its attempts point at (which defers).
   */
  static int choose(List<Target> targets, int attempt, int failoverAfter, Endpoints endpoints, long now) {
    int start = Math.min((attempt - 1) / failoverAfter, targets.size() - 1);
    for (int i = start; i < targets.size(); i++) {
      EndpointState s = endpoints.get(targets.get(i).endpoint());
      if (s == null || !s.blocked(now)) {
        return i;
      }
    }
    return start;
  }

  /** The attempt log's line on why a fail-over target takes this attempt. */
  static String note(List<Target> targets, int chosen, int attempt, int failoverAfter, Endpoints endpoints) {
    int byFailures = Math.min((attempt - 1) / failoverAfter, targets.size() - 1);
    StringBuilder why = new StringBuilder("fail-over: target ").append(chosen + 1).append(" of ")
        .append(targets.size()).append(" (").append(targets.get(chosen).uri()).append(") takes this attempt");
    if (byFailures > 0) {
      why.append("; ").append(byFailures * failoverAfter).append(" failed attempts moved it past ")
          .append(byFailures == 1 ? "the first target" : "the first " + byFailures + " targets")
          .append(" (option failover-after ").append(failoverAfter).append(')');
    }
    for (int i = byFailures; i < chosen; i++) {
      EndpointState s = endpoints.get(targets.get(i).endpoint());
      why.append("; ").append(targets.get(i).endpoint()).append(s != null && s.disabled() ? " is disabled"
          : " has its circuit open");
    }
    return why.toString();
  }
}
