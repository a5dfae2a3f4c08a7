package dev.herald.deploy;

import dev.herald.deploy.GoTemplate.Command;
import dev.herald.deploy.GoTemplate.Field;
import dev.herald.deploy.GoTemplate.Function;
import dev.herald.deploy.GoTemplate.If;
import dev.herald.deploy.GoTemplate.Literal;
import dev.herald.deploy.GoTemplate.Node;
import dev.herald.deploy.GoTemplate.Operand;
import dev.herald.deploy.GoTemplate.Output;
import dev.herald.deploy.GoTemplate.Parenthesized;
import dev.herald.deploy.GoTemplate.Pipeline;
import dev.herald.deploy.GoTemplate.Range;
import dev.herald.deploy.GoTemplate.Text;
import dev.herald.deploy.GoTemplate.Variable;
import dev.herald.deploy.GoTemplate.With;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Runs {@link GoTemplate}s on Helm's data ({@code .Values}, {@code .Release}, {@code .Chart}), with
 * Helm's rules: a missing map key is empty, a field of nothing is an error, Go's truth (false, 0, nil
 * and empty are false), maps ranged in key order; and the functions the chart calls, as Helm and
 * Sprig define them: include, required, default, quote, toYaml, indent, nindent, trunc, trimSuffix,
 * printf (%s %d %v), print, replace, contains, b64enc, sha256sum, not, and, or, eq, ne, empty. Any
 * other function is an error.
 */
final class Evaluator {
  private final Map<String, List<Node>> templates;

  Evaluator(Map<String, List<Node>> templates) {
    this.templates = templates;
  }

  /** The named template run on {@code data} ({@code $} and the dot). */
  String execute(String name, Object data) {
    List<Node> body = templates.get(name);
    if (body == null) {
      throw new IllegalArgumentException("no template named " + name);
    }
    StringBuilder out = new StringBuilder();
    Map<String, Object> variables = new HashMap<>();
    variables.put("$", data);
    run(body, data, variables, out);
    return out.toString();
  }

  private void run(List<Node> nodes, Object dot, Map<String, Object> variables, StringBuilder out) {
    for (Node node : nodes) {
      switch (node) {
        case Text t -> out.append(t.text());
        case Output o -> {
          Object value = pipeline(o.pipeline(), dot, variables);
          if (o.pipeline().declared().isEmpty()) {
            out.append(text(value));
          }
        }
        case If i -> {
          Map<String, Object> scope = new HashMap<>(variables);
          List<Node> chosen = i.otherwise();
          for (GoTemplate.Branch b : i.branches()) {
            if (truth(pipeline(b.condition(), dot, scope))) {
              chosen = b.body();
              break;
            }
          }
          run(chosen, dot, scope, out);
        }
        case With w -> {
          Map<String, Object> scope = new HashMap<>(variables);
          Object value = pipeline(w.value(), dot, scope);
          if (truth(value)) {
            run(w.body(), value, scope, out);
          } else {
            run(w.otherwise(), dot, scope, out);
          }
        }
        case Range r -> range(r, dot, variables, out);
      }
    }
  }

  private void range(Range r, Object dot, Map<String, Object> variables, StringBuilder out) {
    Object value = pipeline(r.value(), dot, variables);
    List<Map.Entry<Object, Object>> entries = new ArrayList<>();
    if (value instanceof Map<?, ?> map) {
      new TreeMap<>(map).forEach((k, v) -> entries.add(Map.entry(k, v == null ? "" : v)));
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        entries.add(Map.entry(i, list.get(i) == null ? "" : list.get(i)));
      }
    } else if (value != null) {
      throw new IllegalArgumentException(r.value().where() + ": range over " + value.getClass().getSimpleName());
    }
    if (entries.isEmpty()) {
      run(r.otherwise(), dot, new HashMap<>(variables), out);
    }
    for (Map.Entry<Object, Object> e : entries) {
      Map<String, Object> scope = new HashMap<>(variables);
      if (r.variables().size() == 1) {
        scope.put(r.variables().getFirst(), e.getValue());
      } else if (r.variables().size() == 2) {
        scope.put(r.variables().get(0), e.getKey());
        scope.put(r.variables().get(1), e.getValue());
      }
      run(r.body(), e.getValue(), scope, out);
    }
  }

  private Object pipeline(Pipeline p, Object dot, Map<String, Object> variables) {
    Object value = null;
    boolean piped = false;
    for (Command c : p.commands()) {
      value = command(c, dot, variables, piped, value, p.where());
      piped = true;
    }
    for (String v : p.declared()) {
      variables.put(v, value);
    }
    return value;
  }

  private Object command(Command c, Object dot, Map<String, Object> variables, boolean piped, Object input,
      String where) {
    Operand first = c.operands().getFirst();
    if (!(first instanceof Function f)) {
      if (piped) {
        throw new IllegalArgumentException(where + ": cannot pipe into a value that is not a function");
      }
      return operand(first, dot, variables, where);
    }
    List<Object> args = new ArrayList<>();
    for (Operand o : c.operands().subList(1, c.operands().size())) {
      args.add(operand(o, dot, variables, where));
    }
    if (piped) {
      args.add(input);
    }
    return call(f.name(), args, where);
  }

  private Object operand(Operand o, Object dot, Map<String, Object> variables, String where) {
    return switch (o) {
      case Literal l -> l.value();
      case Field f -> fields(dot, f.path(), where);
      case Variable v -> {
        if (!variables.containsKey(v.name())) {
          throw new IllegalArgumentException(where + ": undefined variable " + v.name());
        }
        yield fields(variables.get(v.name()), v.path(), where);
      }
      case Parenthesized p -> pipeline(p.pipeline(), dot, new HashMap<>(variables));
      case Function f -> call(f.name(), List.of(), where);
    };
  }

  private static Object fields(Object value, List<String> path, String where) {
    Object v = value;
    for (String name : path) {
      if (!(v instanceof Map<?, ?> map)) {
        throw new IllegalArgumentException(where + ": nil pointer evaluating ." + name + " (of "
            + (v == null ? "nothing" : v.getClass().getSimpleName()) + ")");
      }
      v = map.get(name);
    }
    return v;
  }

  private Object call(String name, List<Object> a, String where) {
    try {
      return switch (name) {
        case "include" -> execute(string(a, 0), a.get(1));
        case "required" -> {
          if (a.get(1) == null || a.get(1) instanceof String s && s.isEmpty()) {
            throw new IllegalArgumentException("required: " + a.get(0));
          }
          yield a.get(1);
        }
        case "default" -> empty(a.get(1)) ? a.get(0) : a.get(1);
        case "quote" -> String.join(" ", a.stream().filter(Objects::nonNull).map(x -> goQuote(text(x))).toList());
        case "toYaml" -> toYaml(a.get(0));
        case "indent" -> indent(number(a.get(0)), text(a.get(1)));
        case "nindent" -> "\n" + indent(number(a.get(0)), text(a.get(1)));
        case "trunc" -> {
          String s = text(a.get(1));
          int n = number(a.get(0));
          yield n >= 0 && s.length() > n ? s.substring(0, n) : s;
        }
        case "trimSuffix" -> {
          String s = text(a.get(1));
          yield s.endsWith(string(a, 0)) ? s.substring(0, s.length() - string(a, 0).length()) : s;
        }
        case "printf" -> printf(string(a, 0), a.subList(1, a.size()));
        case "print" -> print(a);
        case "replace" -> text(a.get(2)).replace(string(a, 0), string(a, 1));
        case "contains" -> text(a.get(1)).contains(string(a, 0));
        case "b64enc" -> Base64.getEncoder().encodeToString(text(a.get(0)).getBytes(StandardCharsets.UTF_8));
        case "sha256sum" -> HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
            .digest(text(a.get(0)).getBytes(StandardCharsets.UTF_8)));
        case "not" -> !truth(a.get(0));
        case "and" -> a.stream().filter(x -> !truth(x)).findFirst().orElse(a.getLast());
        case "or" -> a.stream().filter(Evaluator::truth).findFirst().orElse(a.getLast());
        case "eq" -> equal(a.get(0), a.get(1));
        case "ne" -> !equal(a.get(0), a.get(1));
        case "empty" -> empty(a.get(0));
        default -> throw new IllegalArgumentException("unknown function " + name);
      };
    } catch (IndexOutOfBoundsException e) {
      throw new IllegalArgumentException(where + ": " + name + ": wrong number of arguments", e);
    } catch (NoSuchAlgorithmException | RuntimeException e) {
      throw new IllegalArgumentException(where + ": " + name + ": " + e.getMessage(), e);
    }
  }

  // ---------------------------------------------------------------- Go's and Sprig's semantics

  /** Go's truth: false, 0, nil, empty strings and collections are false. */
  static boolean truth(Object v) {
    return !empty(v);
  }

  static boolean empty(Object v) {
    return switch (v) {
      case null -> true;
      case Boolean b -> !b;
      case Number n -> n.doubleValue() == 0;
      case String s -> s.isEmpty();
      case Collection<?> c -> c.isEmpty();
      case Map<?, ?> m -> m.isEmpty();
      default -> false;
    };
  }

  private static boolean equal(Object x, Object y) {
    if (x instanceof Number a && y instanceof Number b) {
      return a.doubleValue() == b.doubleValue();
    }
    return Objects.equals(x, y);
  }

  /** How Go prints a value in a template (nil prints nothing, as Helm makes it). */
  static String text(Object v) {
    return switch (v) {
      case null -> "";
      case Double d when d == Math.rint(d) && !d.isInfinite() -> String.valueOf(d.longValue());
      default -> String.valueOf(v);
    };
  }

  private static String string(List<Object> a, int i) {
    if (!(a.get(i) instanceof String s)) {
      throw new IllegalArgumentException("argument " + (i + 1) + " must be a string, was " + a.get(i));
    }
    return s;
  }

  private static int number(Object v) {
    if (!(v instanceof Number n)) {
      throw new IllegalArgumentException("expected a number, was " + v);
    }
    return n.intValue();
  }

  private static String indent(int n, String s) {
    String pad = " ".repeat(n);
    return pad + s.replace("\n", "\n" + pad);
  }

  /** Go's %q: double quotes, with backslash escapes. */
  static String goQuote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  private static String printf(String format, List<Object> args) {
    StringBuilder out = new StringBuilder();
    int arg = 0;
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%') {
        out.append(c);
        continue;
      }
      char verb = format.charAt(++i);
      switch (verb) {
        case '%' -> out.append('%');
        case 's', 'v' -> out.append(text(args.get(arg++)));
        case 'd' -> out.append(number(args.get(arg++)));
        case 'q' -> out.append(goQuote(text(args.get(arg++))));
        default -> throw new IllegalArgumentException("unsupported printf verb %" + verb);
      }
    }
    return out.toString();
  }

  /** Go's fmt.Sprint: a space between two operands when neither is a string. */
  private static String print(List<Object> args) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < args.size(); i++) {
      if (i > 0 && !(args.get(i) instanceof String) && !(args.get(i - 1) instanceof String)) {
        out.append(' ');
      }
      out.append(text(args.get(i)));
    }
    return out.toString();
  }

  /** Helm's toYaml: block style, keys sorted (Helm goes through JSON), no final newline. */
  static String toYaml(Object v) {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setIndent(2);
    options.setWidth(Integer.MAX_VALUE);
    String yaml = new Yaml(options).dump(sorted(v));
    return yaml.endsWith("\n") ? yaml.substring(0, yaml.length() - 1) : yaml;
  }

  private static Object sorted(Object v) {
    if (v instanceof Map<?, ?> map) {
      TreeMap<String, Object> out = new TreeMap<>();
      map.forEach((k, x) -> out.put(String.valueOf(k), sorted(x)));
      return out;
    }
    if (v instanceof List<?> list) {
      return list.stream().map(Evaluator::sorted).toList();
    }
    return v;
  }
}
