package dev.herald.bench;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table: left-aligned first column, the rest right-aligned. */
final class Table {
  private final String title;
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String title, String... headers) {
    this.title = title;
    this.headers = List.of(headers);
  }

  Table row(Object... cells) {
    List<String> r = new ArrayList<>();
    for (Object c : cells) {
      r.add(cell(c));
    }
    rows.add(r);
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  static String cell(Object c) {
    return switch (c) {
      case null -> "-";
      case Double d when d.isNaN() -> "-";
      case Double d when Math.abs(d) >= 100 -> String.format("%,.0f", d);
      case Double d when Math.abs(d) >= 10 -> String.format("%.1f", d);
      case Double d -> String.format("%.2f", d);
      case Long l -> String.format("%,d", l);
      case Integer i -> String.format("%,d", i);
      default -> c.toString();
    };
  }

  String render() {
    int[] w = new int[headers.size()];
    for (int i = 0; i < w.length; i++) {
      w[i] = headers.get(i).length();
      for (List<String> r : rows) {
        if (i < r.size()) {
          w[i] = Math.max(w[i], r.get(i).length());
        }
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append('\n').append(title).append('\n');
    line(sb, headers, w);
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < w.length; i++) {
      rule.append(i == 0 ? "" : "  ").append("-".repeat(w[i]));
    }
    sb.append(rule).append('\n');
    for (List<String> r : rows) {
      line(sb, r, w);
    }
    return sb.toString();
  }

  private static void line(StringBuilder sb, List<String> cells, int[] w) {
    for (int i = 0; i < w.length; i++) {
      String c = i < cells.size() ? cells.get(i) : "";
      if (i > 0) {
        sb.append("  ");
      }
      sb.append(i == 0 ? String.format("%-" + w[i] + "s", c) : String.format("%" + w[i] + "s", c));
    }
    sb.append('\n');
  }

  void print() {
    System.out.print(render());
  }
}
