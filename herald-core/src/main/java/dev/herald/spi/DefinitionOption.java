package dev.herald.spi;

import dev.herald.InvalidInputException;
import dev.herald.schedule.DurationText;
import java.util.Locale;

/**
 * An option a definition may set, declared by the part that reads it: a {@link Channel} (its
 * {@link Channel#options()}) or a feature such as a server's alerts ({@link OptionOwner}). When a
 * definition is saved, a key no part declares is refused with the closest declared one ("did you
 * mean"), and each value is checked against its option's type here before its owner checks the rest.
 *
 * @param key the option's key ({@code timeout}), or for a family the prefix of its keys ({@code header.})
 * @param type what the value must be
 * @param min for {@link Type#WHOLE_NUMBER}, the least value
 * @param max for {@link Type#WHOLE_NUMBER}, the greatest value
 * @param family whether {@code key} is a prefix: {@code header.} admits {@code header.x-tenant}
 * @param description what it does, for documentation and errors
 */
public record DefinitionOption(String key, Type type, long min, long max, boolean family, String description) {
  /** What an option's value must be. */
  public enum Type {
    /** Any text (the owner checks its form). */
    TEXT,
    /** A duration such as {@code 5s} ({@link DurationText}). */
    DURATION,
    /** A whole number from {@code min} to {@code max}. */
    WHOLE_NUMBER,
    /** {@code true} or {@code false}. */
    BOOLEAN
  }

  public DefinitionOption {
    if (key == null || key.isEmpty() || type == null) {
      throw new IllegalArgumentException("an option needs a key and a type");
    }
    description = description == null ? "" : description;
  }

  /** Any text; its owner checks the form. */
  public static DefinitionOption text(String key, String description) {
    return new DefinitionOption(key, Type.TEXT, 0, 0, false, description);
  }

  /** A duration such as {@code 5s}. */
  public static DefinitionOption duration(String key, String description) {
    return new DefinitionOption(key, Type.DURATION, 0, 0, false, description);
  }

  /** A whole number from {@code min} to {@code max}. */
  public static DefinitionOption wholeNumber(String key, long min, long max, String description) {
    return new DefinitionOption(key, Type.WHOLE_NUMBER, min, max, false, description);
  }

  /** {@code true} or {@code false}. */
  public static DefinitionOption bool(String key, String description) {
    return new DefinitionOption(key, Type.BOOLEAN, 0, 0, false, description);
  }

  /** Every key starting with {@code prefix} (such as {@code header.}), each any text. */
  public static DefinitionOption family(String prefix, String description) {
    return new DefinitionOption(prefix, Type.TEXT, 0, 0, true, description);
  }

  /** Whether this option is the one {@code optionKey} sets. */
  public boolean matches(String optionKey) {
    return family ? optionKey.startsWith(key) && optionKey.length() > key.length() : optionKey.equals(key);
  }

  /** How it is written in lists of options: {@code header.<name>} for a family. */
  public String shown() {
    return family ? key + "<name>" : key;
  }

  /**
   * Checks a value against this option's type.
   *
   * @throws InvalidInputException naming {@code options.<optionKey>} and saying what was expected
   */
  public void check(String optionKey, String value) {
    String field = "options." + optionKey;
    String v = value == null ? "" : value.strip();
    switch (type) {
      case TEXT -> { }
      case DURATION -> DurationText.parse(v, field);
      case BOOLEAN -> {
        if (!v.toLowerCase(Locale.ROOT).equals("true") && !v.toLowerCase(Locale.ROOT).equals("false")) {
          throw new InvalidInputException(field, "must be true or false, was '" + value + "'");
        }
      }
      case WHOLE_NUMBER -> {
        long n;
        try {
          n = Long.parseLong(v);
        } catch (NumberFormatException e) {
          n = Long.MIN_VALUE;
        }
        if (n < min || n > max) {
          throw new InvalidInputException(field, "must be a whole number from " + min + " to " + max
              + ", was '" + value + "'");
        }
      }
    }
  }
}
