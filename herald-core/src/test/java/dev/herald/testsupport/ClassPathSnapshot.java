package dev.herald.testsupport;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A copy of this JVM's class-path directories, for child JVMs started by a test: a build running
 * alongside may recompile {@code target/classes} while a child is loading its classes.
 */
public final class ClassPathSnapshot {
  private final Path root;
  private final String classPath;

  private ClassPathSnapshot(Path root, String classPath) {
    this.root = root;
    this.classPath = classPath;
  }

  /** Copies the class path, retrying (up to 60 s) until a copy is complete and holds {@code required}. */
  public static ClassPathSnapshot take(String prefix, Class<?>... required) throws Exception {
    Path root = Files.createTempDirectory(prefix);
    String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      List<String> out = new ArrayList<>();
      boolean complete = true;
      for (int k = 0; k < entries.length; k++) {
        Path p = Path.of(entries[k]);
        if (!Files.isDirectory(p)) {
          out.add(entries[k]);
          continue;
        }
        Path copy = root.resolve(Integer.toString(k));
        try {
          copyTree(p, copy);
        } catch (IOException | UncheckedIOException e) {
          complete = false; // rewritten while copying
        }
        out.add(copy.toString());
      }
      boolean all = complete;
      for (Class<?> type : required) {
        all &= onClassPath(out, type);
      }
      if (all) {
        return new ClassPathSnapshot(root, String.join(File.pathSeparator, out));
      }
      if (System.nanoTime() > deadline) {
        fail("cannot snapshot the test class path %s (classes missing: being recompiled?)",
            System.getProperty("java.class.path"));
      }
      Thread.sleep(500); // wait for the concurrent build to finish writing classes
    }
  }

  /** The class path for {@code java -cp}. */
  public String classPath() {
    return classPath;
  }

  public void delete() throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(f);
      }
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  private static boolean onClassPath(List<String> entries, Class<?> type) {
    String file = type.getName().replace('.', File.separatorChar) + ".class";
    return entries.stream().anyMatch(e -> Files.isRegularFile(Path.of(e).resolve(file)));
  }
}
