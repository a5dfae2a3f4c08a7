package dev.herald.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;

/**
 * Where a first start puts the secrets it made (the initial admin token, the console's admin
 * password): a file only the server's user may read ({@code 0600}) in the data folder, not the log,
 * which is copied to places with other readers. The log says where the file is.
 */
public final class FirstStartSecrets {
  static final String FILE = "initial-secrets.txt";

  private final Path file;

  FirstStartSecrets(Path dataDir) {
    this.file = dataDir.toAbsolutePath().normalize().resolve(FILE);
  }

  public Path file() {
    return file;
  }

  /** Appends {@code label: value}, creating the file readable and writable by its owner only. */
  public synchronized void write(String label, String value) {
    try {
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
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the first start's secrets to " + file + ": " + e.getMessage(), e);
    }
  }
}
