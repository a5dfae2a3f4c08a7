package dev.herald.server;

import dev.herald.Targets;
import java.util.ArrayList;
import java.util.List;

/**
 * A notice's own receivers: its {@code callbackUrl} and the {@code fallbackUrls} tried in order when
 * it fails: the API's view of a notice's {@link Targets}, stored in its target in their one form, so
 * rows written by any version read back the same.
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
    List<String> urls = Targets.listOf(target);
    return urls.isEmpty() ? NONE : new CallbackTargets(urls.getFirst(), urls.subList(1, urls.size()));
  }

  /** The target to store: the URLs, stripped, separated by one space; null for none. */
  String stored() {
    if (callbackUrl == null) {
      return null;
    }
    List<String> all = new ArrayList<>(1 + fallbackUrls.size());
    all.add(callbackUrl.strip());
    fallbackUrls.forEach(u -> all.add(u.strip()));
    return Targets.of(all).text();
  }
}
