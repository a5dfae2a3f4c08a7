package dev.herald.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Just enough JSON for the results file: write maps, lists, strings, numbers, booleans, null; read them back. */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v) {
    switch (v) {
      case null -> sb.append("null");
      case String s -> string(sb, s);
      case Boolean b -> sb.append(b);
      case Double d -> number(sb, d);
      case Float f -> number(sb, f.doubleValue());
      case Number n -> sb.append(n);
      case Map<?, ?> m -> {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : m.entrySet()) {
          if (!first) {
            sb.append(',');
          }
          first = false;
          string(sb, String.valueOf(e.getKey()));
          sb.append(':');
          write(sb, e.getValue());
        }
        sb.append('}');
      }
      case Iterable<?> it -> {
        sb.append('[');
        boolean first = true;
        for (Object o : it) {
          if (!first) {
            sb.append(',');
          }
          first = false;
          write(sb, o);
        }
        sb.append(']');
      }
      default -> string(sb, v.toString());
    }
  }

  private static void number(StringBuilder sb, double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      sb.append("null");
    } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      sb.append((long) d);
    } else {
      sb.append(Math.round(d * 1000.0) / 1000.0);
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }

  /** Parses one JSON value; objects become LinkedHashMaps, arrays Lists, numbers Doubles or Longs. */
  static Object parse(String text) {
    Parser p = new Parser(text);
    p.ws();
    Object v = p.value();
    p.ws();
    if (p.i != text.length()) {
      throw p.error("trailing characters");
    }
    return v;
  }

  private static final class Parser {
    final String s;
    int i;

    Parser(String s) {
      this.s = s;
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("bad JSON at " + i + ": " + what);
    }

    void ws() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }

    Object value() {
      if (i >= s.length()) {
        throw error("unexpected end");
      }
      char c = s.charAt(i);
      return switch (c) {
        case '{' -> object();
        case '[' -> array();
        case '"' -> str();
        case 't' -> literal("true", Boolean.TRUE);
        case 'f' -> literal("false", Boolean.FALSE);
        case 'n' -> literal("null", null);
        default -> num();
      };
    }

    Object literal(String word, Object v) {
      if (!s.startsWith(word, i)) {
        throw error("expected " + word);
      }
      i += word.length();
      return v;
    }

    Map<String, Object> object() {
      Map<String, Object> m = new LinkedHashMap<>();
      i++;
      ws();
      if (peek() == '}') {
        i++;
        return m;
      }
      while (true) {
        ws();
        if (peek() != '"') {
          throw error("expected a key");
        }
        String k = str();
        ws();
        expect(':');
        ws();
        m.put(k, value());
        ws();
        char c = next();
        if (c == '}') {
          return m;
        }
        if (c != ',') {
          throw error("expected , or }");
        }
      }
    }

    List<Object> array() {
      List<Object> l = new ArrayList<>();
      i++;
      ws();
      if (peek() == ']') {
        i++;
        return l;
      }
      while (true) {
        ws();
        l.add(value());
        ws();
        char c = next();
        if (c == ']') {
          return l;
        }
        if (c != ',') {
          throw error("expected , or ]");
        }
      }
    }

    String str() {
      expect('"');
      StringBuilder sb = new StringBuilder();
      while (true) {
        char c = next();
        if (c == '"') {
          return sb.toString();
        }
        if (c < 0x20) {
          throw error("control character in string");
        }
        if (c == '\\') {
          char e = next();
          switch (e) {
            case '"', '\\', '/' -> sb.append(e);
            case 'n' -> sb.append('\n');
            case 'r' -> sb.append('\r');
            case 't' -> sb.append('\t');
            case 'b' -> sb.append('\b');
            case 'f' -> sb.append('\f');
            case 'u' -> {
              if (i + 4 > s.length()) {
                throw error("short \\u escape");
              }
              sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
              i += 4;
            }
            default -> throw error("bad escape");
          }
        } else {
          sb.append(c);
        }
      }
    }

    Object num() {
      int start = i;
      while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
        i++;
      }
      String t = s.substring(start, i);
      if (t.isEmpty()) {
        throw error("unexpected character");
      }
      try {
        if (t.contains(".") || t.contains("e") || t.contains("E")) {
          return Double.parseDouble(t);
        }
        return Long.parseLong(t);
      } catch (NumberFormatException e) {
        throw error("bad number " + t);
      }
    }

    char peek() {
      if (i >= s.length()) {
        throw error("unexpected end");
      }
      return s.charAt(i);
    }

    char next() {
      char c = peek();
      i++;
      return c;
    }

    void expect(char c) {
      if (next() != c) {
        throw error("expected " + c);
      }
    }
  }
}
