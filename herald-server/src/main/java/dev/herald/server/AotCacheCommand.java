package dev.herald.server;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar herald-server.jar aot-cache FILE [ARGS_FILE]}: makes the JVM's AOT cache (JDK 25
 * and later, JEP 483/514/515) for this jar and this JVM, so that a server started with {@code
 * -XX:AOTCache=FILE} finds its classes loaded and linked and its hot methods profiled from the first
 * second instead of warming up under load. A child JVM runs {@link AotTraining} with {@code
 * -XX:AOTCacheOutput=FILE}; a second one checks that the cache is usable ({@code -XX:AOTMode=on}).
 * With {@code ARGS_FILE}, writes the flag to use it there, for {@code java @ARGS_FILE} (the container
 * image's entry point, which has no shell to decide): empty when no cache could be made, as on a JDK
 * before 25, so the server starts the same either way; then the command exits 0 (an image builds
 * without a cache rather than not at all). The training's receiver needs the module {@code jdk.httpserver}.
 */
final class AotCacheCommand {
  static final int FIRST_JDK = 25;
  static final Duration TRAINING_TIMEOUT = Duration.ofMinutes(5);

  private AotCacheCommand() {}

  static int run(String[] args, PrintStream out) {
    if (args.length < 1 || args.length > 2) {
      out.println("usage: java -jar herald-server.jar aot-cache FILE [ARGS_FILE]");
      return 2;
    }
    Path cache = Path.of(args[0]).toAbsolutePath();
    Path argsFile = args.length > 1 ? Path.of(args[1]) : null;
    try {
      boolean made = make(cache, Runtime.version().feature(), out);
      if (argsFile != null) {
        Files.writeString(argsFile, argsFileText(made ? cache : null));
      }
      // with an args file (an image build) a cache not made is said above, and the server starts without it
      return made || argsFile != null || Runtime.version().feature() < FIRST_JDK ? 0 : 1;
    } catch (IOException e) {
      out.println("AOT cache not made: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  private static boolean make(Path cache, int jdk, PrintStream out) throws IOException, InterruptedException {
    if (jdk < FIRST_JDK) {
      out.println("JDK " + jdk + " has no AOT cache (JDK " + FIRST_JDK + " and later): none made; the server starts without it");
      return false;
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String jar = System.getProperty("java.class.path");
    Files.deleteIfExists(cache);
    out.println("Training run for the AOT cache " + cache + " (about half a minute)");
    if (exec(trainingCommand(java, jar, cache)) != 0 || !Files.exists(cache)) {
      out.println("AOT cache not made: the training run failed (its output is above)");
      Files.deleteIfExists(cache);
      return false;
    }
    if (exec(checkCommand(java, jar, cache)) != 0) {
      out.println("AOT cache not usable by this JVM (output above): removed");
      Files.deleteIfExists(cache);
      return false;
    }
    out.println("AOT cache made: " + cache + " (" + Files.size(cache) / (1024 * 1024) + " MB); start with -XX:AOTCache=" + cache);
    return true;
  }

  /** The training JVM: the same jar as the server's (a cache is tied to its class path), writing the cache. */
  static List<String> trainingCommand(String java, String jar, Path cache) {
    // -Xlog: not a warning per class the cache leaves out (proxies, classes failing old verification)
    return List.of(java, "-XX:AOTCacheOutput=" + cache, "-Xlog:aot*=error", "-jar", jar, "aot-training");
  }

  /** A JVM that must map the cache ({@code AOTMode=on} fails where {@code auto} would warn and go on). */
  static List<String> checkCommand(String java, String jar, Path cache) {
    return List.of(java, "-XX:AOTMode=on", "-XX:AOTCache=" + cache, "-jar", jar, "aot-check");
  }

  static String argsFileText(Path cache) {
    return cache == null
        ? "# no AOT cache: made on a JDK before " + FIRST_JDK + ", or its training run failed\n"
        : "-XX:AOTCache=" + cache + "\n";
  }

  /**
   * What the training and check JVMs inherit of this environment: what a JVM needs to run, nothing
   * that configures the server ({@code SPRING_*}, {@code HERALD_*}) or the JVM ({@code
   * JAVA_TOOL_OPTIONS} may load agents or set properties). The first start of the launcher trains in
   * the server's own environment, production settings included.
   */
  static Map<String, String> trainingEnvironment(Map<String, String> parent) {
    Map<String, String> kept = new java.util.TreeMap<>();
    for (String name : List.of("PATH", "HOME", "USER", "TMPDIR", "TMP", "TEMP", "LANG", "LC_ALL", "LC_CTYPE", "TZ",
        "JAVA_HOME", "SystemRoot", "windir")) {
      if (parent.containsKey(name)) {
        kept.put(name, parent.get(name));
      }
    }
    return kept;
  }

  private static int exec(List<String> command) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).inheritIO();
    Map<String, String> env = builder.environment();
    Map<String, String> kept = trainingEnvironment(env);
    env.clear();
    env.putAll(kept);
    Process p = builder.start();
    if (!p.waitFor(TRAINING_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }

  /** The training JVM's main: the workload, then exit (the JVM writes the cache as it exits). */
  static int train(PrintStream out) {
    try {
      int received = AotTraining.run(AotTraining.CALLBACKS, Duration.ofSeconds(90));
      out.println("AOT training: " + received + " of " + AotTraining.CALLBACKS + " callbacks delivered");
      return received >= AotTraining.CALLBACKS ? 0 : 1;
    } catch (IOException | RuntimeException e) {
      out.println("AOT training failed: " + e);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }
}
