package dev.herald;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where in a caller's input a refused value sits: a list of segments, each a field name or a list
 * index, such as {@code notices[2].orderingKey}. Each adapter renders it in its own shape; {@link
 * #toString()} is the dotted form this library's messages use.
 *
 * @param segments the names ({@link String}) and indexes ({@link Integer}) from the outside in
 */
public record FieldPath(List<Object> segments) {
  /** The input itself. */
  public static final FieldPath ROOT = new FieldPath(List.of());

  public FieldPath {
    for (Object s : segments) {
      if (!(s instanceof String) && !(s instanceof Integer)) {
        throw new IllegalArgumentException("a segment is a field name or an index, was " + s);
      }
    }
    segments = List.copyOf(segments);
  }

  /** A field of the input. */
  public static FieldPath of(String name) {
    return ROOT.then(name);
  }

  /**
   * Reads the dotted form, e.g. {@code definition.retrySchedule} or {@code notices[1].payload}: the
   * inverse of {@link #toString()}. A part whose brackets hold anything but an index is one name.
   */
  public static FieldPath parse(String dotted) {
    if (dotted == null || dotted.isEmpty()) {
      return ROOT;
    }
    List<Object> out = new ArrayList<>();
    String[] parts = dotted.split("\\.", -1);
    for (int p = 0; p < parts.length; p++) {
      Matcher m = PART.matcher(parts[p]);
      if (!m.matches() || (p > 0 && m.group(1).isEmpty() && !m.group(2).isEmpty())) {
        out.add(parts[p]);
        continue;
      }
      if (!m.group(1).isEmpty() || m.group(2).isEmpty()) {
        out.add(m.group(1));
      }
      Matcher i = INDEX.matcher(m.group(2));
      while (i.find()) {
        out.add(Integer.valueOf(i.group(1)));
      }
    }
    return new FieldPath(out);
  }

  private static final Pattern PART = Pattern.compile("([^\\[\\]]*)((?:\\[\\d{1,9}])*)");
  private static final Pattern INDEX = Pattern.compile("\\[(\\d{1,9})]");

  /** This path's field {@code name}. */
  public FieldPath then(String name) {
    return plus(Objects.requireNonNull(name));
  }

  /** This path's item {@code index}. */
  public FieldPath at(int index) {
    return plus(index);
  }

  /** {@code inner} inside this path. */
  public FieldPath then(FieldPath inner) {
    List<Object> s = new ArrayList<>(segments);
    s.addAll(inner.segments);
    return new FieldPath(s);
  }

  private FieldPath plus(Object segment) {
    List<Object> s = new ArrayList<>(segments);
    s.add(segment);
    return new FieldPath(s);
  }

  public boolean isRoot() {
    return segments.isEmpty();
  }

  /** Whether the first segment is the field {@code name}. */
  public boolean startsWith(String name) {
    return !segments.isEmpty() && segments.getFirst().equals(name);
  }

  /** The last segment, if it is a field name; else null. */
  public String leaf() {
    return segments.isEmpty() || !(segments.getLast() instanceof String s) ? null : s;
  }

  /** The same path with its last segment renamed from {@code from} to {@code to} (unchanged if it is not {@code from}). */
  public FieldPath renamedLeaf(String from, String to) {
    if (!from.equals(leaf())) {
      return this;
    }
    List<Object> s = new ArrayList<>(segments);
    s.set(s.size() - 1, to);
    return new FieldPath(s);
  }

  /** The dotted form: {@code notices[2].orderingKey}; empty for {@link #ROOT}. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (int k = 0; k < segments.size(); k++) {
      if (segments.get(k) instanceof Integer i) {
        b.append('[').append(i).append(']');
      } else {
        b.append(k == 0 ? "" : ".").append(segments.get(k));
      }
    }
    return b.toString();
  }
}
