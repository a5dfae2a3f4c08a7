package dev.herald.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Podman as it runs on these machines: with runc (crun refuses their hybrid cgroups) and ulimits within
 * this process's hard limits (Podman's default nofile is above them, and runc then refuses to start).
 */
final class Podman {
  /** runc refused nproc above this here, though the hard limit was higher. */
  static final long MAX_NPROC = 32_768;
  static final long MAX_NOFILE = 65_536;

  record Result(int exit, String out, String err) {
    Result ok() {
      if (exit != 0) {
        throw new AssertionError("exit " + exit + "\nstdout: " + out + "\nstderr: " + err);
      }
      return this;
    }
  }

  private Podman() {}

  /** {@code podman ARGS}, within the timeout (else killed and failed). */
  static Result podman(Duration timeout, String... args) {
    List<String> command = new ArrayList<>(List.of("podman"));
    command.addAll(List.of(args));
    return exec(command, Map.of(), null, timeout);
  }

  /** The options every {@code podman run} and {@code podman build} here needs. */
  static List<String> runtimeOptions() {
    long nofile = Math.min(hardLimit("Max open files"), MAX_NOFILE);
    long nproc = Math.min(hardLimit("Max processes"), MAX_NPROC);
    return List.of("--runtime", "runc", "--ulimit", "nofile=" + nofile + ":" + nofile,
        "--ulimit", "nproc=" + nproc + ":" + nproc);
  }

  /** Fails with what to do when Podman is not installed. */
  static void require() {
    try {
      exec(List.of("podman", "--version"), Map.of(), null, Duration.ofSeconds(30)).ok();
    } catch (UncheckedIOException e) {
      throw new AssertionError("podman is not installed; run scripts/install-test-packages.sh as root", e);
    }
  }

  static Result exec(List<String> command, Map<String, String> env, Path dir, Duration timeout) {
    try {
      Path out = Files.createTempFile("podman-out", ".txt");
      Path err = Files.createTempFile("podman-err", ".txt");
      try {
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        if (dir != null) {
          pb.directory(dir.toFile());
        }
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
          throw new AssertionError(command + " took longer than " + timeout + "; stdout so far: "
              + Files.readString(out, StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The hard limit of one line of /proc/self/limits; "unlimited" as Long.MAX_VALUE. */
  static long hardLimit(String name) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
        if (line.startsWith(name)) {
          String hard = line.substring(name.length()).strip().split("\\s+")[1];
          return hard.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(hard);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no '" + name + "' in /proc/self/limits");
  }
}
