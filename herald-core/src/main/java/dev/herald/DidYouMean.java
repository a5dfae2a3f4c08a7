package dev.herald;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * The known name closest to a misspelt one, for "did you mean 'x'?" in errors about options and
 * properties: within an edit distance of 2, or of a third of the name's length when it is longer.
 */
public final class DidYouMean {
  private DidYouMean() {}

  /** The closest of {@code known} to {@code written}, if one is close enough to be a slip. */
  public static Optional<String> closest(String written, Collection<String> known) {
    int within = Math.max(2, written.length() / 3);
    return known.stream()
        .filter(k -> distance(k, written) <= within)
        .min(Comparator.comparingInt((String k) -> distance(k, written)).thenComparing(Comparator.naturalOrder()));
  }

  /** Levenshtein distance: single-character insertions, deletions and substitutions. */
  public static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] swap = prev;
      prev = cur;
      cur = swap;
    }
    return prev[b.length()];
  }
}
