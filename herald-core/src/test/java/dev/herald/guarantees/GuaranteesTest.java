package dev.herald.guarantees;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.guarantees.InvariantChecker.Violation;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Herald's guarantees under a seeded, randomized, concurrent scenario ({@link Scenario}): three
 * in-process nodes on one database, a few thousand notices enqueued from random nodes in several
 * ways, handlers with random latency and failures, a receiver that confirms during an attempt,
 * after it, or never, operators cancelling, editing, resending and confirming from random nodes
 * while deliveries run, and a node killed (its connections fail, its attempts end at the kill) and
 * started again under the same node id. Everything is recorded ({@link Journal}) and checked
 * afterwards ({@link InvariantChecker}); the test fails on any violation, listing each.
 *
 * <p>The scenario and every handler decision derive from the seed, so a seed replays the same plan
 * and the same answers; thread timing does not replay, so a violation may need a few runs of its
 * seed to come back. Properties: {@code herald.guarantees.seed} (printed on every run),
 * {@code herald.guarantees.notices} (default 2000), {@code herald.guarantees.seconds} (default 12;
 * one node kill per 15 s). For a long run on PostgreSQL:
 *
 * <pre>
 * ./mvnw -B -pl herald-core test -Dtest=PostgresGuaranteesTest -Dherald.guarantees.seconds=120 \
 *     -Dherald.guarantees.notices=20000 -Dherald.guarantees.seed=7
 * </pre>
 *
 * The summary line and the violations are printed to the test's output
 * ({@code herald-core/target/surefire-reports/dev.herald.guarantees.*-output.txt}).
 */
abstract class GuaranteesTest {

  /** The database's name, for the summary. */
  protected abstract String database();

  /** A new connection pool on the one database every node shares; each node gets its own. */
  protected abstract HikariDataSource newPool();

  @Test
  void guaranteesHoldWithRacingOperatorsAndAKilledNode() throws Exception {
    Scenario scenario = Scenario.fromSystemProperties();
    System.out.printf("guarantees on %s: seed %d, %d notices over %d s (replay: -Dherald.guarantees.seed=%d)%n",
        database(), scenario.seed, scenario.notices, scenario.seconds, scenario.seed);
    GuaranteesRun.Outcome out = new GuaranteesRun(scenario, this::newPool).run();
    InvariantChecker checker = new InvariantChecker(out.journal(), out.finals(), out.checkedAt(), out.started(),
        out.scenarioEnd());
    List<Violation> violations = checker.check();
    String summary = summary(scenario, out, checker, violations);
    System.out.println(summary);
    violations.forEach(System.out::println);
    out.journal().calls.stream().filter(c -> !c.acked())
        .collect(Collectors.groupingBy(c -> c.op() + ": " + c.error().replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "<id>")
            .replaceAll("[0-9]+", "N"), TreeMap::new, Collectors.counting()))
        .forEach((error, n) -> System.out.println("call failed " + n + "x: " + error));
    violations.stream().map(Violation::n).distinct().limit(100).map(checker::history).forEach(System.out::println);
    assertThat(violations)
        .as("%s%n%s", summary, violations.stream().limit(30).map(Violation::toString).collect(Collectors.joining("\n")))
        .isEmpty();
  }

  private String summary(Scenario scenario, GuaranteesRun.Outcome out, InvariantChecker checker,
      List<Violation> violations) {
    Journal j = out.journal();
    Map<String, Long> planned = scenario.actions.stream()
        .filter(a -> a instanceof Scenario.Operate)
        .collect(Collectors.groupingBy(a -> ((Scenario.Operate) a).op().name(), TreeMap::new, Collectors.counting()));
    Map<String, String> calls = new TreeMap<>();
    j.calls.stream().collect(Collectors.groupingBy(c -> c.op() + (c.origin() == Journal.Origin.OPERATOR ? "" : "/receiver")))
        .forEach((op, cs) -> calls.put(op, cs.stream().filter(Journal.Call::acked).count() + "/" + cs.size()));
    return String.format(
        "GUARANTEES seed=%d db=%s nodes=%d notices=%d acked=%d ops(planned)=%s calls(acked/made)=%s faults=%s kills=%d %s"
            + " troubles=%s lag=%s slowestEnqueue=%s deliveries=%d cut=%d attempts=%d finals=%s unsettled=%d admittedOverlaps=%d violations=%d %s",
        scenario.seed, database(), Scenario.NODES, scenario.notices, j.ids.size(), planned, calls, out.faults(),
        j.events.stream().filter(e -> e.what().equals("kill")).count(),
        j.events.stream().map(e -> e.what() + (e.node().equals("-") ? "" : " " + e.node()) + "@" + Journal.ms(e.at()))
            .toList(),
        new TreeMap<>(j.troubles), Journal.ms(j.maxLag.get()), Journal.ms(j.slowestEnqueue.get()), j.deliveries.size(), j.deliveries.stream().filter(Journal.Delivery::cut).count(),
        out.finals().values().stream().mapToInt(d -> d.attempts().size()).sum(),
        count(out.finals().values().stream().map(d -> d.notice().status().name()).toList(), Function.identity()),
        checker.unsettled.size(), checker.admittedOverlaps, violations.size(), count(violations, v -> v.kind().name()));
  }

  private static <T> Map<String, Long> count(List<T> items, Function<T, String> key) {
    return items.stream().collect(Collectors.groupingBy(key, TreeMap::new, Collectors.counting()));
  }
}
