package dev.herald.internal;

import dev.herald.InvalidInputException;

/**
 * Checks that a payload is one well-formed JSON value (RFC 8259) before Herald stores it, so that
 * a malformed payload is refused at intake, naming the offset, instead of failing at every
 * delivery attempt. Herald stores payloads as text and never needs a tree, so this is a single
 * pass over the characters with no JSON library, no regex and no allocation per character.
 * Nesting is tracked in a bit set rather than on the call stack and is limited to {@value
 * #MAX_DEPTH} levels, so a hostile payload of brackets cannot overflow the stack.
 *
 * <p>Syntax only: duplicate keys and escaped lone surrogates ({@code "\ud800"}) pass, as the RFC's
 * grammar allows them; unescaped control characters, raw unpaired surrogates, leading zeros, NaN
 * and trailing commas do not.
 */
public final class JsonText {
  /** The deepest nesting of arrays and objects accepted. */
  public static final int MAX_DEPTH = 512;

  private static final String EXPECTED_VALUE =
      "expected a value (object, array, string, number, true, false or null)";

  private final String text;
  private final String field;
  private final int length;
  private int pos;

  private JsonText(String text, String field) {
    this.text = text;
    this.field = field;
    this.length = text.length();
  }

  /**
   * Refuses {@code text} unless it is exactly one JSON value with only JSON whitespace around it.
   *
   * @param field the field path reported when the text is refused, e.g. {@code payload}
   * @throws InvalidInputException naming {@code field}, with a reason such as {@code not valid JSON
   *     at offset 7: expected ',' or '}', found ']'}
   */
  public static void requireValid(String text, String field) {
    if (text == null) {
      throw new InvalidInputException(field, "must not be null");
    }
    new JsonText(text, field).document();
  }

  private void document() {
    // Bit d of `objects` is set when the container at depth d + 1 is an object, clear for an array.
    long[] objects = new long[MAX_DEPTH / Long.SIZE];
    int depth = 0;
    skipWhitespace();
    while (true) {
      // A value is expected at pos.
      if (pos >= length) {
        throw error(EXPECTED_VALUE);
      }
      char c = text.charAt(pos);
      boolean opened = false;
      if (c == '{' || c == '[') {
        if (depth == MAX_DEPTH) {
          throw error("nested deeper than " + MAX_DEPTH + " levels");
        }
        boolean object = c == '{';
        if (object) {
          objects[depth >>> 6] |= 1L << depth;
        } else {
          objects[depth >>> 6] &= ~(1L << depth);
        }
        depth++;
        pos++;
        skipWhitespace();
        if (pos < length && text.charAt(pos) == (object ? '}' : ']')) {
          pos++;
          depth--;
        } else if (object) {
          member("expected a string key or '}'");
          opened = true;
        } else {
          opened = true;
        }
      } else {
        scalar(c);
      }
      if (opened) {
        continue;
      }
      // A value has just ended: close containers until one continues with a comma.
      while (true) {
        skipWhitespace();
        if (depth == 0) {
          if (pos < length) {
            throw error("expected end of input");
          }
          return;
        }
        boolean object = (objects[(depth - 1) >>> 6] & (1L << (depth - 1))) != 0;
        char close = object ? '}' : ']';
        char next = pos < length ? text.charAt(pos) : 0;
        if (pos < length && next == ',') {
          pos++;
          skipWhitespace();
          if (object) {
            member("expected a string key");
          }
          break;
        }
        if (pos < length && next == close) {
          pos++;
          depth--;
          continue;
        }
        throw error(object ? "expected ',' or '}'" : "expected ',' or ']'");
      }
    }
  }

  /** Reads {@code "key" :} and leaves pos where the member's value starts. */
  private void member(String expected) {
    if (pos >= length || text.charAt(pos) != '"') {
      throw error(expected);
    }
    string();
    skipWhitespace();
    if (pos >= length || text.charAt(pos) != ':') {
      throw error("expected ':'");
    }
    pos++;
    skipWhitespace();
  }

  private void scalar(char c) {
    switch (c) {
      case '"' -> string();
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          number();
        } else {
          throw error(EXPECTED_VALUE);
        }
      }
    }
  }

  private void literal(String word) {
    if (!text.startsWith(word, pos)) {
      throw error("expected '" + word + "'");
    }
    pos += word.length();
  }

  private void string() {
    int start = pos;
    pos++; // opening quote
    while (pos < length) {
      char c = text.charAt(pos);
      if (c == '"') {
        pos++;
        return;
      }
      if (c == '\\') {
        pos++;
        if (pos >= length) {
          break;
        }
        char escaped = text.charAt(pos);
        switch (escaped) {
          case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> pos++;
          case 'u' -> {
            pos++;
            for (int i = 0; i < 4; i++) {
              if (pos >= length || !isHexDigit(text.charAt(pos))) {
                throw error("expected 4 hex digits after \\u");
              }
              pos++;
            }
          }
          default ->
              throw error("invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
        }
      } else if (c < 0x20) {
        throw error("control character in string, must be escaped");
      } else if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && pos + 1 < length
            && Character.isLowSurrogate(text.charAt(pos + 1))) {
          pos += 2;
        } else {
          throw error("unpaired surrogate in string");
        }
      } else {
        pos++;
      }
    }
    pos = length;
    throw new InvalidInputException(
        field,
        "not valid JSON at offset "
            + length
            + ": expected '\"' to close the string that starts at offset "
            + start
            + ", found end of input");
  }

  private void number() {
    if (text.charAt(pos) == '-') {
      pos++;
    }
    if (pos < length && text.charAt(pos) == '0') {
      pos++;
      if (pos < length && isDigit(text.charAt(pos))) {
        throw error("leading zeros are not allowed");
      }
    } else {
      digits();
    }
    if (pos < length && text.charAt(pos) == '.') {
      pos++;
      digits();
    }
    if (pos < length && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
      pos++;
      if (pos < length && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
        pos++;
      }
      digits();
    }
  }

  private void digits() {
    if (pos >= length || !isDigit(text.charAt(pos))) {
      throw error("expected a digit");
    }
    do {
      pos++;
    } while (pos < length && isDigit(text.charAt(pos)));
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isHexDigit(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private void skipWhitespace() {
    while (pos < length) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private InvalidInputException error(String expected) {
    return new InvalidInputException(
        field, "not valid JSON at offset " + pos + ": " + expected + ", found " + found());
  }

  private String found() {
    if (pos >= length) {
      return "end of input";
    }
    char c = text.charAt(pos);
    if (c > 0x20 && c < 0x7f) {
      return "'" + c + "'";
    }
    return String.format("U+%04X", (int) c);
  }
}
