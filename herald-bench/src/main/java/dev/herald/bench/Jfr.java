package dev.herald.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/** A JFR recording (the JDK's "profile" settings) around one measured run, when --jfr DIR is given. */
final class Jfr implements AutoCloseable {
  private final Recording recording;
  private final Path file;

  private Jfr(Recording recording, Path file) {
    this.recording = recording;
    this.file = file;
  }

  static Jfr start(Options o, String name) {
    if (o.jfrDir == null) {
      return new Jfr(null, null);
    }
    try {
      Files.createDirectories(o.jfrDir);
      Recording r = new Recording(Configuration.getConfiguration("profile"));
      // denser CPU samples than the profile settings' 10-20 ms: short runs still give enough of them
      r.enable("jdk.ExecutionSample").withPeriod(java.time.Duration.ofMillis(2));
      r.enable("jdk.NativeMethodSample").withPeriod(java.time.Duration.ofMillis(10));
      r.setName(name);
      r.start();
      return new Jfr(r, o.jfrDir.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + ".jfr"));
    } catch (IOException | ParseException e) {
      throw new BenchException("cannot start JFR: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (recording == null) {
      return;
    }
    try {
      recording.stop();
      recording.dump(file);
      System.out.println("    JFR recording: " + file + "  (summary: --jfr-summary " + file + ")");
    } catch (IOException e) {
      System.err.println("warning: cannot write JFR recording " + file + ": " + e.getMessage());
    } finally {
      recording.close();
    }
  }
}
