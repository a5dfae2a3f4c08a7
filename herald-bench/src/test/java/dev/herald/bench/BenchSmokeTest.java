package dev.herald.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the bench still runs: every H2 case with tiny sizes, one JVM, and the results file gets one
 * well-formed JSON line per result with the fields the README promises. No timing is checked: the
 * numbers of a run this small mean nothing.
 */
class BenchSmokeTest {

  @Test
  void everyH2CaseRunsAndWritesWellFormedResultLines(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("results.jsonl");
    int exit = Bench.run(
        "--case", "all", "--db", "h2", "--out", out.toString(), "--tmp", dir.resolve("work").toString(),
        "--no-progress",
        "--n", "500", "--rate", "100", "--duration", "0.5", "--warmup", "0", "--delay", "0.5", "--producers", "4",
        "--intake-duration", "0.5", "--intake-producers", "2",
        "--scale-n", "2000", "--scale-due", "200", "--scale-rate", "50", "--scale-duration", "0.5",
        "--scale-idle-ms", "300",
        "--threads", "8", "--jit-warmup", "0",
        // a long poll interval keeps the poller waiting (not inside JDBC) when each run closes Herald: closing
        // interrupts the poller, which on H2 can close the database (README, "Findings")
        "--poll-ms", "10000");

    List<Map<String, Object>> lines = new ArrayList<>();
    for (String line : Files.readAllLines(out)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> m = (Map<String, Object>) Json.parse(line);
      lines.add(m);
    }
    for (Map<String, Object> m : lines) {
      assertThat(m).containsKeys("schema", "run_id", "time", "case", "system", "variant", "db", "ok", "metrics",
          "settings", "machine", "jvm", "database");
      assertThat(m.get("db")).isEqualTo("h2");
      assertThat(m.get("ok")).as("ok of %s: %s", m.get("case") + "/" + m.get("system") + "/" + m.get("variant"),
          m.get("error")).isEqualTo(true);
      assertThat(map(m, "metrics")).isNotEmpty();
      assertThat(map(m, "machine")).containsKeys("cores", "memory_bytes", "os");
      assertThat(map(m, "jvm")).containsKeys("version", "vm");
      assertThat(map(m, "database")).containsKeys("product", "version");
    }
    assertThat(keys(lines)).containsExactlyInAnyOrder(
        "burn-down/herald", "burn-down/db-scheduler",
        "lateness/herald", "lateness/db-scheduler",
        "webhooks/herald", "webhooks/db-scheduler", "webhooks/herald", "webhooks/db-scheduler",
        "intake/herald", "intake/herald", "intake/herald", "intake/herald", "intake/herald", "intake/jdbc",
        "intake/jdbc", "intake/db-scheduler", "intake/db-scheduler",
        "scale/herald", "scale/herald", "scale/herald", "scale/herald", "scale/herald", "scale/herald",
        "roof/jdbc", "roof/jdbc", "roof/jdbc");
    for (Map<String, Object> m : lines) {
      Map<String, Object> metrics = map(m, "metrics");
      switch ((String) m.get("case")) {
        case "burn-down", "roof" -> assertThat(number(metrics, "deliveries_per_s")).isPositive();
        case "webhooks" -> assertThat(metrics).containsAnyOf(entryKey(metrics, "deliveries_per_s"),
            entryKey(metrics, "lateness_p99_ms"));
        case "lateness" -> assertThat(metrics).containsKeys("lateness_p50_ms", "lateness_p99_ms", "lateness_p999_ms",
            "lateness_max_ms", "rate_achieved");
        case "intake" -> assertThat(number(metrics, "notices_per_s")).isPositive();
        case "scale" -> assertThat(metrics).containsAnyOf(entryKey(metrics, "heap_used_mb"),
            entryKey(metrics, "deliveries_per_s"), entryKey(metrics, "lateness_p99_ms"));
        default -> throw new AssertionError("unexpected case " + m.get("case"));
      }
    }
    assertThat(exit).isZero();
  }

  @Test
  void theFanOutCaseWritesAnEventBesideEnqueueAll(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("results.jsonl");
    int exit = Bench.run("--case", "fan-out", "--db", "h2", "--out", out.toString(), "--tmp",
        dir.resolve("work").toString(), "--no-progress", "--intake-duration", "0.5", "--intake-producers", "2",
        "--fanout-endpoints", "10", "--poll-ms", "10000");
    assertThat(exit).isZero();
    List<Map<String, Object>> lines = new ArrayList<>();
    for (String line : Files.readAllLines(out)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> m = (Map<String, Object>) Json.parse(line);
      lines.add(m);
    }
    assertThat(lines).extracting(m -> m.get("variant")).containsExactly("event", "enqueue-all");
    for (Map<String, Object> m : lines) {
      assertThat(m.get("ok")).as("%s: %s", m.get("variant"), m.get("error")).isEqualTo(true);
      assertThat(number(map(m, "metrics"), "notices_per_s")).isPositive();
    }
  }

  private static List<String> keys(List<Map<String, Object>> lines) {
    return lines.stream().map(m -> m.get("case") + "/" + m.get("system")).toList();
  }

  private static Map.Entry<String, Object> entryKey(Map<String, Object> m, String key) {
    return Map.entry(key, m.getOrDefault(key, "absent"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Map<String, Object> m, String key) {
    return (Map<String, Object>) m.get(key);
  }

  private static double number(Map<String, Object> m, String key) {
    return ((Number) m.get(key)).doubleValue();
  }
}
