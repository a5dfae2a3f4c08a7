package dev.herald;

import java.util.ArrayList;
import java.util.List;

/**
 * Fail-over targets: where a notice goes, in order, the first one first (a channel that supports
 * fail-over, such as HTTP, moves to the next one when the current one keeps failing). The one codec
 * of their stored form: the targets separated by one space ({@link #text()}), read back by {@link
 * #parse}, which also takes any run of whitespace, so rows written by every version read the same. A
 * lone target is stored as itself.
 *
 * <p>Each target is one token (a URL never holds a bare space); what a target must look like is the
 * channel's to check.
 *
 * @param list the targets in order: 1 to {@value #MAX}, none blank or holding whitespace
 */
public record Targets(List<String> list) {
  /** The most targets a notice or a definition fails over between. */
  public static final int MAX = 5;

  public Targets {
    list = check(list, "target");
  }

  /**
   * Targets in order, each checked: 1 to {@value #MAX}, none blank or holding whitespace.
   *
   * @throws InvalidInputException naming {@code target}
   */
  public static Targets of(List<String> targets) {
    return new Targets(targets);
  }

  /** Reads a stored or given target text: one target, or several separated by whitespace. */
  public static Targets parse(String text) {
    return parse(text, "target");
  }

  /**
   * Reads a target text: one target, or several separated by whitespace.
   *
   * @throws InvalidInputException naming {@code field} when the text is blank or holds more than {@value #MAX}
   */
  public static Targets parse(String text, String field) {
    if (text == null || text.isBlank()) {
      throw new InvalidInputException(field, "must not be blank");
    }
    return new Targets(check(split(text), field));
  }

  /**
   * The targets a stored text holds, in order, as written: unchecked (a row is read as it is, even a
   * target of a channel without fail-over, such as a list of mail recipients); empty for null or blank.
   */
  public static List<String> listOf(String text) {
    return text == null || text.isBlank() ? List.of() : List.copyOf(split(text));
  }

  /** The first target of {@code text} (one target, or a fail-over list); null when it is null or blank. */
  public static String firstOf(String text) {
    List<String> all = listOf(text);
    return all.isEmpty() ? null : all.getFirst();
  }

  /** The stored form: the targets separated by one space. */
  public String text() {
    return String.join(" ", list);
  }

  /** The first target, tried first. */
  public String first() {
    return list.getFirst();
  }

  public int size() {
    return list.size();
  }

  private static List<String> split(String text) {
    String stripped = text.strip();
    List<String> out = new ArrayList<>();
    int start = -1;
    for (int i = 0; i <= stripped.length(); i++) {
      boolean space = i == stripped.length() || Character.isWhitespace(stripped.charAt(i));
      if (space && start >= 0) {
        out.add(stripped.substring(start, i));
        start = -1;
      } else if (!space && start < 0) {
        start = i;
      }
    }
    return out;
  }

  private static List<String> check(List<String> targets, String field) {
    if (targets == null || targets.isEmpty()) {
      throw new InvalidInputException(field, "must give at least one target");
    }
    if (targets.size() > MAX) {
      throw new InvalidInputException(field, "at most " + MAX + " fail-over targets, got " + targets.size());
    }
    for (int i = 0; i < targets.size(); i++) {
      String t = targets.get(i);
      if (t == null || t.isBlank()) {
        throw new InvalidInputException(field, "target " + (i + 1) + " of " + targets.size() + " is blank");
      }
      if (split(t).size() != 1 || !t.equals(t.strip())) {
        throw new InvalidInputException(field, "target " + (i + 1) + " of " + targets.size() + " ('" + t
            + "') holds whitespace; give each target on its own");
      }
    }
    return List.copyOf(targets);
  }
}
