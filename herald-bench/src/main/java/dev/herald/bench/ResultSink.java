package dev.herald.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Appends one JSON line per result to the results file, and keeps the results of this run for the summary. */
final class ResultSink {
  private final Path file;
  private final String runId = Instant.now().toString().replace(":", "").replace("-", "").substring(0, 15) + "-"
      + UUID.randomUUID().toString().substring(0, 8);
  private final Map<String, Object> machine = Env.machine();
  private final Map<String, Object> jvm = Env.jvm();
  private final List<Result> results = new ArrayList<>();

  ResultSink(Path file) {
    this.file = file;
  }

  String runId() {
    return runId;
  }

  Path file() {
    return file;
  }

  Map<String, Object> machine() {
    return machine;
  }

  synchronized void add(Result r, Map<String, Object> database) {
    results.add(r);
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("schema", 1);
    line.put("run_id", runId);
    line.put("time", Instant.now().toString());
    line.put("case", r.caseName());
    line.put("system", r.system());
    line.put("variant", r.variant());
    line.put("db", r.db());
    line.put("ok", r.ok());
    if (r.error() != null) {
      line.put("error", r.error());
    }
    line.put("metrics", r.metrics());
    line.put("settings", r.settings());
    line.put("machine", machine);
    line.put("jvm", jvm);
    line.put("database", database);
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      Files.writeString(file, Json.write(line) + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new BenchException("cannot write results to " + file + ": " + e.getMessage(), e);
    }
  }

  synchronized List<Result> results() {
    return List.copyOf(results);
  }
}
