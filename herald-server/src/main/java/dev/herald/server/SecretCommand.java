package dev.herald.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code java -jar herald-server.jar secret new-key} prints a new key for {@code
 * herald.server.secret-key}; {@code secret seal} reads a value on standard input and prints it sealed
 * under the key in {@code HERALD_SERVER_SECRET_KEY}, for a property such as {@code
 * herald.server.alerts.smtp-password=enc:v1:...}.
 */
final class SecretCommand {
  private SecretCommand() {}

  static int run(String[] args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    String action = args.length > 0 ? args[0] : "";
    switch (action) {
      case "new-key" -> {
        out.println(SecretBox.newKey());
        return 0;
      }
      case "seal" -> {
        String key = System.getenv("HERALD_SERVER_SECRET_KEY");
        if (key == null || key.isBlank()) {
          err.println("set HERALD_SERVER_SECRET_KEY to the key (java -jar herald-server.jar secret new-key makes one)");
          return 2;
        }
        try {
          String value = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
          if (value == null || value.isEmpty()) {
            err.println("give the value to seal on standard input");
            return 2;
          }
          out.println(new SecretBox(key, null).seal(value));
          return 0;
        } catch (IOException | IllegalStateException e) {
          err.println("secret seal failed: " + e.getMessage());
          return 1;
        }
      }
      default -> {
        err.println("usage: java -jar herald-server.jar secret new-key");
        err.println("       HERALD_SERVER_SECRET_KEY=... java -jar herald-server.jar secret seal < value");
        return 2;
      }
    }
  }
}
