package dev.herald.channel.local;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which of a handler's exceptions fail its notice for good (DEAD at once, with the definition's
 * alert) and which are retried: definition options {@value #FAIL_ON} and {@value #RETRY_ON}, each a
 * list of exception class names (separated by commas or spaces). An exception matches a name when
 * its class, a superclass or an interface it implements has it, or when one of its causes does.
 * {@value #RETRY_ON} wins over {@value #FAIL_ON} (fail on {@code java.lang.RuntimeException} but
 * retry {@code java.sql.SQLTransientException}, say); an exception matching neither is retried, as
 * without a strategy.
 */
record ExceptionStrategy(List<String> failOn, List<String> retryOn) {
  static final String FAIL_ON = "fail-on";
  static final String RETRY_ON = "retry-on";
  static final List<dev.herald.spi.DefinitionOption> OPTIONS = List.of(
      dev.herald.spi.DefinitionOption.text(FAIL_ON, "exception class names that fail a notice for good (DEAD at once)"),
      dev.herald.spi.DefinitionOption.text(RETRY_ON, "exception class names retried even when fail-on lists a supertype"));
  static final ExceptionStrategy NONE = new ExceptionStrategy(List.of(), List.of());
  private static final Pattern CLASS_NAME =
      Pattern.compile("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*(\\.[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*)*");

  /** @throws InvalidInputException naming the option and the name that is not a class name */
  static ExceptionStrategy of(NoticeDefinition d) {
    return new ExceptionStrategy(names(d, FAIL_ON), names(d, RETRY_ON));
  }

  private static List<String> names(NoticeDefinition d, String option) {
    String v = d.option(option, null);
    if (v == null || v.isBlank()) {
      return List.of();
    }
    List<String> out = List.of(v.strip().split("[,\\s]+"));
    for (String n : out) {
      if (!CLASS_NAME.matcher(n).matches()) {
        throw new InvalidInputException("options." + option, "'" + n + "' is not a class name such as"
            + " java.lang.IllegalArgumentException");
      }
    }
    return out;
  }

  /** Whether {@code e} fails its notice for good. */
  boolean failsForGood(Throwable e) {
    return !failOn.isEmpty() && !matches(e, retryOn) && matches(e, failOn);
  }

  private static boolean matches(Throwable e, List<String> names) {
    if (names.isEmpty()) {
      return false;
    }
    Set<Throwable> seen = new HashSet<>();
    for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
      if (isA(t.getClass(), names)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isA(Class<?> type, List<String> names) {
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(type));
    Set<Class<?>> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      Class<?> c = todo.pop();
      if (!seen.add(c)) {
        continue;
      }
      if (names.contains(c.getName())) {
        return true;
      }
      if (c.getSuperclass() != null) {
        todo.push(c.getSuperclass());
      }
      todo.addAll(List.of(c.getInterfaces()));
    }
    return false;
  }
}
