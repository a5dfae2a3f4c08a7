package dev.herald.spring;

import dev.herald.Herald;
import dev.herald.NoticeDefinition;
import dev.herald.UnknownDefinitionException;
import java.util.function.Supplier;

/** Makes "no definition named x" say which definitions there are. */
final class KnownDefinitions {
  private KnownDefinitions() {}

  /** Runs {@code action}; an unknown definition is reported again with the known names. */
  static <T> T listedOnFailure(Herald herald, Supplier<T> action) {
    try {
      return action.get();
    } catch (UnknownDefinitionException e) {
      throw unknown(herald, e.field(), e.definition(), e);
    }
  }

  static UnknownDefinitionException unknown(Herald herald, String field, String name, Throwable cause) {
    UnknownDefinitionException listed = new UnknownDefinitionException(field, name,
        herald.definitions().list().stream().map(NoticeDefinition::name).sorted().toList());
    if (cause != null) {
      listed.initCause(cause);
    }
    return listed;
  }
}
