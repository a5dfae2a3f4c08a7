package dev.herald;

import dev.herald.internal.JsonText;

/**
 * A payload known to be one well-formed JSON value: a {@link NoticeRequest} made from one ({@link
 * NoticeRequest#of(String, JsonPayload)}) is not scanned again at intake. It exists so that an adapter
 * which parses its input anyway (herald-server streams each request body with a JSON parser) parses
 * each payload once, without giving other callers a way around the check: there are only two ways to
 * make one, {@link #of}, which checks the text as intake would, and a {@link Writer}, which cannot write
 * anything but valid JSON. A plain {@code String} payload is checked at intake as before.
 */
public final class JsonPayload {
  private final String text;

  /** Unchecked: for {@link #of} and {@link Writer} only. */
  JsonPayload(String text) {
    this.text = text;
  }

  /**
   * {@code json} once it is checked to be one JSON value, as intake checks a {@code String} payload.
   *
   * @throws InvalidInputException naming field {@code payload}, with the reason intake would give
   */
  public static JsonPayload of(String json) {
    JsonText.requireValid(json, "payload");
    return new JsonPayload(json);
  }

  /** A writer of one JSON value, token by token. */
  public static Writer writer() {
    return new Writer();
  }

  /** The JSON text. */
  public String text() {
    return text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JsonPayload p && p.text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }

  /**
   * Writes one JSON value as compact text, token by token, and refuses any call that would make it
   * invalid (a value without a name in an object, a close that does not match, a second value, a
   * malformed number); strings are escaped here, so any {@code String} can be written. Escapes are
   * Jackson's, so text parsed and written again by Jackson comes out the same: {@code \" \\ \b \t \n
   * \f \r}, other control characters and unpaired surrogates as {@code \}{@code uXXXX}, the rest as is.
   */
  public static final class Writer {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final StringBuilder out = new StringBuilder(256);
    /** Bit d is set when the container at depth d + 1 is an object, clear for an array. */
    private final long[] objects = new long[JsonText.MAX_DEPTH / Long.SIZE];
    private int depth;
    private boolean first = true;
    private boolean named;
    private boolean done;
    private long utf8Length;

    private Writer() {}

    public Writer startObject() {
      return open('{', true);
    }

    public Writer startArray() {
      return open('[', false);
    }

    public Writer endObject() {
      return close('}', true);
    }

    public Writer endArray() {
      return close(']', false);
    }

    /** The name of the next member of the current object. */
    public Writer name(String name) {
      if (depth == 0 || !inObject() || named) {
        throw new IllegalStateException("a name belongs in an object, before its value");
      }
      comma();
      quoted(name);
      ascii(':');
      named = true;
      return this;
    }

    public Writer string(String value) {
      value();
      quoted(value);
      return ended();
    }

    /**
     * A number exactly as written, e.g. {@code 1.10} or {@code -2E+3}.
     *
     * @throws IllegalArgumentException unless {@code text} is a JSON number
     */
    public Writer number(String text) {
      if (!isNumber(text)) {
        throw new IllegalArgumentException("not a JSON number: " + text);
      }
      value();
      out.append(text);
      utf8Length += text.length();
      return ended();
    }

    public Writer bool(boolean value) {
      value();
      out.append(value);
      utf8Length += value ? 4 : 5;
      return ended();
    }

    public Writer nullValue() {
      value();
      out.append("null");
      utf8Length += 4;
      return ended();
    }

    /** The length of the text so far in UTF-8 bytes, for a caller that bounds it. */
    public long utf8Length() {
      return utf8Length;
    }

    /**
     * The value written.
     *
     * @throws IllegalStateException if it is not complete
     */
    public JsonPayload payload() {
      if (!done) {
        throw new IllegalStateException("the JSON value is not complete");
      }
      return new JsonPayload(out.toString());
    }

    private Writer open(char c, boolean object) {
      value();
      if (depth == JsonText.MAX_DEPTH) {
        throw new InvalidInputException("payload", "nested deeper than " + JsonText.MAX_DEPTH + " levels");
      }
      if (object) {
        objects[depth >>> 6] |= 1L << depth;
      } else {
        objects[depth >>> 6] &= ~(1L << depth);
      }
      depth++;
      first = true;
      ascii(c);
      return this;
    }

    private Writer close(char c, boolean object) {
      if (depth == 0 || inObject() != object || named) {
        throw new IllegalStateException("'" + c + "' does not close an open " + (object ? "object" : "array")
            + (named ? " after a name" : ""));
      }
      depth--;
      first = false;
      ascii(c);
      return ended();
    }

    private boolean inObject() {
      return (objects[(depth - 1) >>> 6] & (1L << (depth - 1))) != 0;
    }

    /** Before a value: it must have a place (a name in an object, a slot in an array, or be the only one). */
    private void value() {
      if (done) {
        throw new IllegalStateException("one JSON value only");
      }
      if (depth > 0) {
        if (inObject()) {
          if (!named) {
            throw new IllegalStateException("a value in an object needs a name first");
          }
          named = false;
        } else {
          comma();
        }
      }
    }

    private Writer ended() {
      done = depth == 0;
      return this;
    }

    private void comma() {
      if (!first) {
        ascii(',');
      }
      first = false;
    }

    private void ascii(char c) {
      out.append(c);
      utf8Length++;
    }

    private void quoted(String s) {
      ascii('"');
      int n = s.length();
      int run = 0; // start of the chars not yet appended
      for (int i = 0; i < n; i++) {
        char c = s.charAt(i);
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
          utf8Length++;
          continue;
        }
        if (c >= 0x80 && !Character.isSurrogate(c)) {
          utf8Length += c < 0x800 ? 2 : 3;
          continue;
        }
        if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          utf8Length += 4;
          i++;
          continue;
        }
        out.append(s, run, i);
        run = i + 1;
        switch (c) {
          case '"' -> escape('"');
          case '\\' -> escape('\\');
          case '\b' -> escape('b');
          case '\t' -> escape('t');
          case '\n' -> escape('n');
          case '\f' -> escape('f');
          case '\r' -> escape('r');
          default -> {
            out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                .append(HEX[c & 0xf]);
            utf8Length += 6;
          }
        }
      }
      out.append(s, run, n);
      ascii('"');
    }

    private void escape(char c) {
      out.append('\\').append(c);
      utf8Length += 2;
    }

    /** {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}, as RFC 8259 writes numbers. */
    static boolean isNumber(String s) {
      int n = s.length();
      int i = 0;
      if (i < n && s.charAt(i) == '-') {
        i++;
      }
      if (i < n && s.charAt(i) == '0') {
        i++;
      } else {
        int start = i;
        i = digits(s, i);
        if (i == start) {
          return false;
        }
      }
      if (i < n && s.charAt(i) == '.') {
        int start = ++i;
        i = digits(s, i);
        if (i == start) {
          return false;
        }
      }
      if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
        i++;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
          i++;
        }
        int start = i;
        i = digits(s, i);
        if (i == start) {
          return false;
        }
      }
      return i == n;
    }

    private static int digits(String s, int i) {
      while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        i++;
      }
      return i;
    }
  }
}
