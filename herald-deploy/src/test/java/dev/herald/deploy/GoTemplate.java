package dev.herald.deploy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The part of Go's text/template that the Herald chart uses, parsed as Go parses it: actions with
 * {@code {{-}} and {@code -}}} trimming the whitespace beside them, comments, {@code if}/{@code else
 * if}/{@code else}, {@code with}, {@code range} (with {@code $key, $value :=}), {@code define},
 * variables, fields, string/number/boolean literals, parentheses and pipelines. Anything else (the
 * {@code template} and {@code block} actions, method calls, {@code break}) is refused with the
 * template's name and line rather than rendered differently. {@link Evaluator} runs the result.
 */
final class GoTemplate {
  sealed interface Node permits Text, Output, If, With, Range {}

  record Text(String text) implements Node {}

  record Output(Pipeline pipeline) implements Node {}

  record Branch(Pipeline condition, List<Node> body) {}

  record If(List<Branch> branches, List<Node> otherwise) implements Node {}

  record With(Pipeline value, List<Node> body, List<Node> otherwise) implements Node {}

  record Range(List<String> variables, Pipeline value, List<Node> body, List<Node> otherwise) implements Node {}

  /** {@code $a := cmd | cmd}; {@code declared} is empty without a declaration. */
  record Pipeline(List<String> declared, List<Command> commands, String where) {}

  record Command(List<Operand> operands) {}

  sealed interface Operand permits Field, Variable, Literal, Function, Parenthesized {}

  /** {@code .a.b} (an empty path is the dot itself). */
  record Field(List<String> path) implements Operand {}

  /** {@code $name.a.b}; {@code $} is the template's data. */
  record Variable(String name, List<String> path) implements Operand {}

  record Literal(Object value) implements Operand {}

  record Function(String name) implements Operand {}

  record Parenthesized(Pipeline pipeline) implements Operand {}

  /** A parsed template file: its own body and the templates it defines. */
  record Parsed(List<Node> body, Map<String, List<Node>> defined) {}

  private final String name;
  private final List<Object> items = new ArrayList<>(); // Text, or Action
  private final Map<String, List<Node>> defined = new HashMap<>();
  private int next;

  private record Action(List<String> tokens, int line) {}

  private GoTemplate(String name) {
    this.name = name;
  }

  static Parsed parse(String name, String source) {
    GoTemplate t = new GoTemplate(name);
    t.scan(source);
    List<Node> body = t.list(List.of());
    if (t.next < t.items.size()) {
      throw t.error((Action) t.items.get(t.next), "unexpected " + ((Action) t.items.get(t.next)).tokens().getFirst());
    }
    return new Parsed(body, t.defined);
  }

  // ---------------------------------------------------------------- scanning

  private void scan(String s) {
    int pos = 0;
    StringBuilder text = new StringBuilder();
    while (true) {
      int open = s.indexOf("{{", pos);
      if (open < 0) {
        text.append(s, pos, s.length());
        addText(text);
        return;
      }
      text.append(s, pos, open);
      int start = open + 2;
      boolean trimLeft = s.startsWith("- ", start) || s.startsWith("-\n", start) || s.startsWith("-\t", start);
      if (trimLeft) {
        trimTrailingWhitespace(text);
        start++;
      }
      int close = closing(s, start, open);
      int end = close;
      boolean trimRight = close - 2 >= start && s.charAt(close - 1) == '-' && Character.isWhitespace(s.charAt(close - 2));
      if (trimRight) {
        end = close - 1;
      }
      String inside = s.substring(start, end).strip();
      int line = lineOf(s, open);
      pos = close + 2;
      if (trimRight) {
        while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
          pos++;
        }
      }
      if (inside.startsWith("/*")) {
        if (!inside.endsWith("*/")) {
          throw new IllegalArgumentException(name + ":" + line + ": unclosed comment");
        }
        continue;
      }
      addText(text);
      items.add(new Action(tokenize(inside, line), line));
    }
  }

  private void addText(StringBuilder text) {
    if (!text.isEmpty()) {
      items.add(new Text(text.toString()));
      text.setLength(0);
    }
  }

  private static void trimTrailingWhitespace(StringBuilder text) {
    int n = text.length();
    while (n > 0 && Character.isWhitespace(text.charAt(n - 1))) {
      n--;
    }
    text.setLength(n);
  }

  /** The index of the {@code }}} closing the action opened at {@code open}, skipping quoted strings. */
  private int closing(String s, int from, int open) {
    char quote = 0;
    for (int i = from; i < s.length() - 1; i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == '\\' && quote == '"') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '`') {
        quote = c;
      } else if (c == '}' && s.charAt(i + 1) == '}') {
        return i;
      }
    }
    throw new IllegalArgumentException(name + ":" + lineOf(s, open) + ": unclosed action");
  }

  private static int lineOf(String s, int index) {
    return (int) s.substring(0, index).chars().filter(c -> c == '\n').count() + 1;
  }

  private List<String> tokenize(String s, int line) {
    List<String> tokens = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '"' || c == '`') {
        int j = i + 1;
        while (j < s.length() && s.charAt(j) != c) {
          j += s.charAt(j) == '\\' && c == '"' ? 2 : 1;
        }
        if (j >= s.length()) {
          throw new IllegalArgumentException(name + ":" + line + ": unterminated string");
        }
        tokens.add(s.substring(i, j + 1));
        i = j + 1;
      } else if (c == '(' || c == ')' || c == '|' || c == ',') {
        tokens.add(String.valueOf(c));
        i++;
      } else if (s.startsWith(":=", i)) {
        tokens.add(":=");
        i += 2;
      } else if (c == '=') {
        throw new IllegalArgumentException(name + ":" + line + ": assignment (=) is not supported");
      } else {
        int j = i;
        while (j < s.length() && !Character.isWhitespace(s.charAt(j)) && "()|,\"`".indexOf(s.charAt(j)) < 0
            && !s.startsWith(":=", j)) {
          j++;
        }
        tokens.add(s.substring(i, j));
        i = j;
      }
    }
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException(name + ":" + line + ": empty action");
    }
    return tokens;
  }

  // ---------------------------------------------------------------- parsing

  /** Nodes up to (not including) an action starting with one of {@code stops}. */
  private List<Node> list(List<String> stops) {
    List<Node> nodes = new ArrayList<>();
    while (next < items.size()) {
      Object item = items.get(next);
      if (item instanceof Text t) {
        nodes.add(t);
        next++;
        continue;
      }
      Action a = (Action) item;
      String keyword = a.tokens().getFirst();
      if (stops.contains(keyword)) {
        return nodes;
      }
      next++;
      switch (keyword) {
        case "if" -> nodes.add(ifNode(a));
        case "with" -> {
          Pipeline value = pipeline(a, 1);
          List<Node> body = list(List.of("else", "end"));
          nodes.add(new With(value, body, otherwise(a)));
        }
        case "range" -> nodes.add(rangeNode(a));
        case "define" -> {
          if (a.tokens().size() != 2) {
            throw error(a, "define takes one template name");
          }
          List<Node> body = list(List.of("end"));
          expect(a, "end");
          defined.put(unquote(a.tokens().get(1)), body);
        }
        case "else", "end" -> throw error(a, "unexpected " + keyword);
        case "template", "block", "break", "continue" -> throw error(a, "the " + keyword + " action is not supported");
        default -> nodes.add(new Output(pipeline(a, 0)));
      }
    }
    if (!stops.isEmpty()) {
      throw new IllegalArgumentException(name + ": missing {{ end }}");
    }
    return nodes;
  }

  private If ifNode(Action a) {
    List<Branch> branches = new ArrayList<>();
    branches.add(new Branch(pipeline(a, 1), list(List.of("else", "end"))));
    while (true) {
      Action stop = (Action) items.get(next++);
      if (stop.tokens().getFirst().equals("end")) {
        return new If(branches, List.of());
      }
      if (stop.tokens().size() > 1 && stop.tokens().get(1).equals("if")) {
        branches.add(new Branch(pipeline(stop, 2), list(List.of("else", "end"))));
        continue;
      }
      List<Node> otherwise = list(List.of("end"));
      expect(a, "end");
      return new If(branches, otherwise);
    }
  }

  private Range rangeNode(Action a) {
    List<String> tokens = a.tokens();
    List<String> variables = new ArrayList<>();
    int from = 1;
    int assign = tokens.indexOf(":=");
    if (assign > 0) {
      for (String t : tokens.subList(1, assign)) {
        if (!t.equals(",")) {
          variables.add(variable(a, t));
        }
      }
      from = assign + 1;
    }
    Pipeline value = new Pipeline(List.of(), commands(a, tokens.subList(from, tokens.size())), where(a));
    List<Node> body = list(List.of("else", "end"));
    return new Range(variables, value, body, otherwise(a));
  }

  /** After a body ending at {@code else} or {@code end}: the else body (empty without one). */
  private List<Node> otherwise(Action opening) {
    Action stop = (Action) items.get(next++);
    if (stop.tokens().getFirst().equals("end")) {
      return List.of();
    }
    if (stop.tokens().size() > 1) {
      throw error(stop, "else with a condition is only supported after if");
    }
    List<Node> otherwise = list(List.of("end"));
    expect(opening, "end");
    return otherwise;
  }

  private void expect(Action opening, String keyword) {
    if (next >= items.size() || !(items.get(next) instanceof Action a) || !a.tokens().getFirst().equals(keyword)) {
      throw error(opening, "missing {{ " + keyword + " }}");
    }
    next++;
  }

  private Pipeline pipeline(Action a, int from) {
    List<String> tokens = a.tokens().subList(from, a.tokens().size());
    if (tokens.size() > 2 && tokens.get(1).equals(":=")) {
      return new Pipeline(List.of(variable(a, tokens.getFirst())), commands(a, tokens.subList(2, tokens.size())),
          where(a));
    }
    return new Pipeline(List.of(), commands(a, tokens), where(a));
  }

  private List<Command> commands(Action a, List<String> tokens) {
    if (tokens.isEmpty()) {
      throw error(a, "missing value");
    }
    List<Command> commands = new ArrayList<>();
    List<Operand> operands = new ArrayList<>();
    for (int i = 0; i < tokens.size(); i++) {
      String t = tokens.get(i);
      if (t.equals("|")) {
        commands.add(command(a, operands));
        operands = new ArrayList<>();
      } else if (t.equals("(")) {
        int close = matching(a, tokens, i);
        operands.add(new Parenthesized(new Pipeline(List.of(), commands(a, tokens.subList(i + 1, close)), where(a))));
        i = close;
      } else {
        operands.add(operand(a, t));
      }
    }
    commands.add(command(a, operands));
    return commands;
  }

  private Command command(Action a, List<Operand> operands) {
    if (operands.isEmpty()) {
      throw error(a, "empty command in pipeline");
    }
    if (operands.size() > 1 && !(operands.getFirst() instanceof Function)) {
      throw error(a, "only functions take arguments (method calls are not supported)");
    }
    return new Command(List.copyOf(operands));
  }

  private int matching(Action a, List<String> tokens, int open) {
    int depth = 0;
    for (int i = open; i < tokens.size(); i++) {
      depth += tokens.get(i).equals("(") ? 1 : tokens.get(i).equals(")") ? -1 : 0;
      if (depth == 0) {
        return i;
      }
    }
    throw error(a, "unclosed (");
  }

  private Operand operand(Action a, String t) {
    char c = t.charAt(0);
    if (c == '"' || c == '`') {
      return new Literal(unquote(t));
    }
    if (c == '.') {
      return new Field(t.equals(".") ? List.of() : path(a, t.substring(1)));
    }
    if (c == '$') {
      int dot = t.indexOf('.');
      return dot < 0 ? new Variable(t, List.of()) : new Variable(t.substring(0, dot), path(a, t.substring(dot + 1)));
    }
    if (Character.isDigit(c) || (c == '-' && t.length() > 1)) {
      try {
        return new Literal(t.contains(".") ? (Object) Double.parseDouble(t) : (Object) Long.parseLong(t));
      } catch (NumberFormatException e) {
        throw error(a, "bad number " + t);
      }
    }
    return switch (t) {
      case "true" -> new Literal(true);
      case "false" -> new Literal(false);
      case "nil" -> new Literal(null);
      case ")", ",", ":=" -> throw error(a, "unexpected " + t);
      default -> new Function(t);
    };
  }

  private List<String> path(Action a, String dotted) {
    List<String> path = List.of(dotted.split("\\.", -1));
    if (path.stream().anyMatch(String::isEmpty)) {
      throw error(a, "bad field ." + dotted);
    }
    return path;
  }

  private String variable(Action a, String t) {
    if (!t.startsWith("$") || t.contains(".")) {
      throw error(a, "expected a variable, got " + t);
    }
    return t;
  }

  private static String unquote(String t) {
    String body = t.substring(1, t.length() - 1);
    if (t.charAt(0) == '`') {
      return body;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = body.charAt(++i);
      out.append(switch (e) {
        case 'n' -> '\n';
        case 't' -> '\t';
        case 'r' -> '\r';
        case '"', '\\' -> e;
        default -> throw new IllegalArgumentException("unsupported escape \\" + e + " in " + t);
      });
    }
    return out.toString();
  }

  private String where(Action a) {
    return name + ":" + a.line();
  }

  private IllegalArgumentException error(Action a, String message) {
    return new IllegalArgumentException(where(a) + ": " + message + " in {{ " + String.join(" ", a.tokens()) + " }}");
  }
}
