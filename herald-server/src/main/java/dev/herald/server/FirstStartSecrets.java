package dev.herald.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a first start puts the secrets it made (the initial admin token, the console's admin
 * password): a file only the server's user may read ({@code 0600}) in the data folder, not the log,
 * which is copied to places with other readers. The log says where the file is. Where the data folder
 * cannot be written (a read-only container without a data volume), the file goes to the temporary
 * folder; where neither can, the secret is logged after all, with a WARN saying how to avoid it.
 */
public final class FirstStartSecrets {
  private static final Logger log = LoggerFactory.getLogger(FirstStartSecrets.class);
  static final String FILE = "initial-secrets.txt";

  private final List<Path> candidates;
  private Path written;

  FirstStartSecrets(Path dataDir) {
    this.candidates = List.of(dataDir.toAbsolutePath().normalize().resolve(FILE),
        Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().resolve("herald-" + FILE));
  }

  /** The file the secrets went to; null if none could be written. */
  public synchronized Path file() {
    return written != null ? written : candidates.getFirst();
  }

  /**
   * Appends {@code label: value}, creating the file readable and writable by its owner only.
   *
   * @return the file, or null when no file could be written (the caller logs the secret then)
   */
  public synchronized Path write(String label, String value) {
    List<Path> order = written != null ? List.of(written) : candidates;
    for (Path file : order) {
      try {
        append(file, label, value);
        written = file;
        return file;
      } catch (IOException | UnsupportedOperationException e) {
        log.warn("cannot write the first start's secrets to {}: {}", file, e.toString());
      }
    }
    log.warn("No file could take the first start's secrets, so they are logged. Set"
        + " herald.server.bootstrap-admin-token and herald.server.console.admin-password (from a secret store) to"
        + " have none made, or give the server a writable herald.server.data-dir.");
    return null;
  }

  private static void append(Path file, String label, String value) throws IOException {
    Files.createDirectories(file.getParent());
    try {
      if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } else {
        Files.createFile(file);
      }
      Files.writeString(file, "# Secrets made by Herald's first start. Keep them somewhere safe, then delete this"
          + " file.\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    } catch (FileAlreadyExistsException e) {
      // appended to
    }
    Files.writeString(file, label + " (" + Instant.now() + "): " + value + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);
  }
}
