package dev.herald.server;

import java.util.ArrayList;
import java.util.List;

/**
 * A notice's own receivers: its {@code callbackUrl} and the {@code fallbackUrls} tried in order when
 * it fails. Stored in the notice's target as the webhook channel reads a fail-over list (the URLs
 * separated by spaces; a URL never holds one), so rows written by any version read back the same.
 *
 * @param callbackUrl the first receiver; null for a notice that uses its definition's target
 * @param fallbackUrls the fail-over receivers, in order; empty for none
 */
record CallbackTargets(String callbackUrl, List<String> fallbackUrls) {
  static final CallbackTargets NONE = new CallbackTargets(null, List.of());

  CallbackTargets {
    fallbackUrls = List.copyOf(fallbackUrls);
  }

  /** A notice's stored target, read: one URL, or URLs separated by any whitespace; null for none. */
  static CallbackTargets read(String target) {
    if (target == null || target.isBlank()) {
      return NONE;
    }
    String[] urls = target.strip().split("\\s+");
    return new CallbackTargets(urls[0], List.of(urls).subList(1, urls.length));
  }

  /** The target to store: the URLs, stripped, separated by one space; null for none. */
  String stored() {
    if (callbackUrl == null) {
      return null;
    }
    List<String> all = new ArrayList<>(1 + fallbackUrls.size());
    all.add(callbackUrl.strip());
    fallbackUrls.forEach(u -> all.add(u.strip()));
    return String.join(" ", all);
  }
}
