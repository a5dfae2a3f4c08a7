package dev.herald.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/herald-server and the AOT cache, with a stand-in JVM (a script that records its arguments and,
 * as {@code aot-cache}, writes the file): the cache is made at a first start that has none, used only
 * with the JVM and jar it was made for, never on a JDK before 25, never for commands, and not with
 * {@code HERALD_AOT=off}. A JVM given a cache of another class path can fail to start, so these are
 * what keeps a fresh server startable.
 */
class LauncherAotCacheTest {
  @TempDir
  Path dir;
  Path jdk;
  Path jar;
  Path calls;

  @BeforeEach
  void fakeJvm() throws IOException {
    jdk = Files.createDirectories(dir.resolve("jdk/bin"));
    calls = dir.resolve("calls.txt");
    // the stand-in java: one line per call; "aot-cache FILE" writes FILE (and fails if told to)
    Path java = jdk.resolve("java");
    Files.writeString(java, """
        #!/bin/sh
        echo "$*" >> "%s"
        prev=""
        for a in "$@"; do
          if [ "$prev" = aot-cache ]; then [ -z "${FAIL_TRAINING:-}" ] || exit 1; echo cache > "$a"; fi
          prev=$a
        done
        exit 0
        """.formatted(calls));
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    release("25.0.3+9-LTS");
    jar = Files.writeString(Files.createDirectories(dir.resolve("app")).resolve("herald-server.jar"), "jar");
  }

  @Test
  void aFirstStartMakesTheCacheAndEveryStartUsesIt() throws Exception {
    launch(Map.of(), "--server.port=9090");
    Path cache = jar.resolveSibling("herald-server.aot");
    assertThat(cache).exists();
    assertThat(calls()).hasSize(2);
    assertThat(calls().get(0)).contains("-jar " + jar.toRealPath() + " aot-cache " + cache);
    assertThat(calls().get(1)).contains("-XX:AOTCache=" + cache).endsWith("-jar " + jar.toRealPath() + " --server.port=9090");

    launch(Map.of());
    assertThat(calls()).as("made once").hasSize(3);
    assertThat(calls().get(2)).contains("-XX:AOTCache=" + cache);
  }

  @Test
  void aCacheOfAnotherJvmOrJarIsNotUsed() throws Exception {
    launch(Map.of("HERALD_AOT", "auto"));
    assertThat(calls().getLast()).contains("-XX:AOTCache=");

    release("25.0.4+7-LTS");
    launch(Map.of("HERALD_AOT", "use"));
    assertThat(calls().getLast()).as("another JVM").doesNotContain("AOTCache").doesNotContain("aot-cache");

    launch(Map.of()); // auto: made again for this JVM
    assertThat(calls().get(calls().size() - 2)).contains("aot-cache");
    assertThat(calls().getLast()).contains("-XX:AOTCache=");

    Files.writeString(jar, "a new build of the jar");
    launch(Map.of("HERALD_AOT", "use"));
    assertThat(calls().getLast()).as("another jar").doesNotContain("AOTCache");
  }

  @Test
  void noCacheOnJdk21ForCommandsWhenOffOrWhenTrainingFails() throws Exception {
    launch(Map.of("HERALD_AOT", "off"));
    assertThat(calls()).hasSize(1);
    assertThat(calls().getLast()).doesNotContain("AOTCache");

    launch(Map.of(), "token", "list");
    assertThat(calls().getLast()).doesNotContain("AOTCache").endsWith("token list");

    launch(Map.of("FAIL_TRAINING", "1"));
    assertThat(calls().get(calls().size() - 2)).contains("aot-cache");
    assertThat(calls().getLast()).as("started without it").doesNotContain("AOTCache").contains("-jar");

    release("21.0.9+10-LTS");
    int before = calls().size();
    launch(Map.of());
    assertThat(calls()).hasSize(before + 1);
    assertThat(calls().getLast()).doesNotContain("AOTCache").contains("-XX:+ExitOnOutOfMemoryError");
  }

  private void release(String version) throws IOException {
    Files.writeString(jdk.resolveSibling("release"), "IMPLEMENTOR=\"test\"\nJAVA_RUNTIME_VERSION=\"" + version + "\"\n");
  }

  private List<String> calls() throws IOException {
    return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
  }

  private void launch(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("sh", Path.of("bin", "herald-server").toAbsolutePath().toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile());
    pb.environment().remove("JAVA_OPTS");
    pb.environment().remove("HERALD_AOT");
    pb.environment().remove("HERALD_AOT_CACHE");
    pb.environment().put("JAVA_HOME", jdk.getParent().toString());
    pb.environment().put("HERALD_JAR", jar.toString());
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("out.txt"))).isZero();
  }
}
