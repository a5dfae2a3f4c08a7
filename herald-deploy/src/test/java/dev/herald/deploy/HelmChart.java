package dev.herald.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.yaml.snakeyaml.Yaml;

/**
 * A Helm chart rendered as {@code helm template} would: values.yaml merged with the given values, Helm's
 * built-in objects ({@code .Values}, {@code .Release}, {@code .Chart}, {@code .Template.BasePath}), every
 * template of templates/ parsed with the named templates of every file, and each file not starting with
 * {@code _} rendered. Templates are run by {@link GoTemplate} and {@link Evaluator}, which know the part of
 * Go templates and Sprig the chart uses and refuse the rest.
 */
final class HelmChart {
  private final Path dir;
  private final Map<String, Object> chart;
  private final Map<String, Object> values;

  private HelmChart(Path dir, Map<String, Object> chart, Map<String, Object> values) {
    this.dir = dir;
    this.chart = chart;
    this.values = values;
  }

  static HelmChart load(Path dir) {
    return new HelmChart(dir, yaml(dir.resolve("Chart.yaml")), yaml(dir.resolve("values.yaml")));
  }

  Map<String, Object> chart() {
    return chart;
  }

  Map<String, Object> values() {
    return values;
  }

  /** Each rendered template file (templates/NAME) by name, in name order. */
  Map<String, String> render(String release, String namespace, Map<String, Object> overrides) {
    String chartName = (String) chart.get("name");
    String basePath = chartName + "/templates";
    Map<String, List<GoTemplate.Node>> templates = new HashMap<>();
    List<String> files;
    try (Stream<Path> list = Files.list(dir.resolve("templates"))) {
      files = list.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String file : files) {
      GoTemplate.Parsed parsed = GoTemplate.parse(basePath + "/" + file, read(dir.resolve("templates").resolve(file)));
      templates.putAll(parsed.defined());
      templates.put(basePath + "/" + file, parsed.body());
    }
    Map<String, Object> root = new HashMap<>();
    root.put("Values", merge(values, overrides));
    root.put("Release", Map.of("Name", release, "Namespace", namespace, "Service", "Helm", "IsInstall", true,
        "IsUpgrade", false, "Revision", 1));
    Map<String, Object> chartObject = new HashMap<>();
    chart.forEach((k, v) -> chartObject.put(Character.toUpperCase(k.charAt(0)) + k.substring(1), v));
    root.put("Chart", chartObject);
    root.put("Template", Map.of("BasePath", basePath));
    Evaluator evaluator = new Evaluator(templates);
    Map<String, String> rendered = new TreeMap<>();
    for (String file : files) {
      if (!file.startsWith("_")) {
        rendered.put(file, evaluator.execute(basePath + "/" + file, root));
      }
    }
    return rendered;
  }

  /** {@code base} with {@code overrides} merged in, maps key by key (Helm's coalescing of values). */
  @SuppressWarnings("unchecked")
  static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> overrides) {
    Map<String, Object> out = new LinkedHashMap<>(base);
    overrides.forEach((k, v) -> {
      if (v instanceof Map<?, ?> m && out.get(k) instanceof Map<?, ?> b) {
        out.put(k, merge((Map<String, Object>) b, (Map<String, Object>) m));
      } else {
        out.put(k, v);
      }
    });
    return out;
  }

  static Map<String, Object> yaml(Path file) {
    Map<String, Object> map = new Yaml().load(read(file));
    return map == null ? Map.of() : map;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
