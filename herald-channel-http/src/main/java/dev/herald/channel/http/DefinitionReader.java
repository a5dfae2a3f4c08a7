package dev.herald.channel.http;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * A definition's HTTP options and targets, read once per definition object: parsing secrets and
 * URLs costs, and the engine hands over the same object until the definition changes.
 */
final class DefinitionReader {
  /** A definition as read; {@code targets} null where each notice brings its own target. */
  record Read(NoticeDefinition definition, HttpOptions options, List<Target> targets) {}

  private static final int MAX_CACHED = 10_000;

  private final Duration defaultTimeout;
  private final int defaultMaxConcurrency;
  private final UnaryOperator<String> secretOpener;
  private final Map<String, Read> byName = new ConcurrentHashMap<>();

  DefinitionReader(Duration defaultTimeout, int defaultMaxConcurrency, UnaryOperator<String> secretOpener) {
    this.defaultTimeout = defaultTimeout;
    this.defaultMaxConcurrency = defaultMaxConcurrency;
    this.secretOpener = secretOpener;
  }

  /** The options alone, read afresh (at save). @throws InvalidInputException naming the bad option */
  HttpOptions options(NoticeDefinition d) {
    return HttpOptions.of(d, defaultTimeout, defaultMaxConcurrency, secretOpener);
  }

  /** @throws InvalidInputException naming the bad option */
  Read read(NoticeDefinition d) {
    Read r = byName.get(d.name());
    if (r != null && r.definition() == d) {
      return r;
    }
    HttpOptions options = options(d);
    List<Target> targets = null; // a definition without a target of its own: its notices carry theirs
    if (!d.perNoticeTarget()) {
      try {
        List<Target> all = new ArrayList<>(FailoverTargets.parse(d.target(), "target"));
        all.addAll(options.fallbackTargets());
        targets = List.copyOf(all.size() > FailoverTargets.MAX_TARGETS ? all.subList(0, FailoverTargets.MAX_TARGETS)
            : all);
      } catch (InvalidInputException e) {
        targets = null; // a bad target stored before it was checked: each delivery reports it
      }
    }
    r = new Read(d, options, targets);
    if (byName.size() < MAX_CACHED) {
      byName.put(d.name(), r);
    }
    return r;
  }
}
