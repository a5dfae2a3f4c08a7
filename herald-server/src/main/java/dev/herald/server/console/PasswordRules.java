package dev.herald.server.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a console password must be: 12 to 72 bytes (bcrypt reads no more), at least 5 different
 * characters, not the user name or containing it, and not a common password, word or keyboard run
 * dressed up ({@code Password2024!}, {@code P@ssw0rd}, {@code qwertyuiop12}, {@code aaaaaaaaaaaa}).
 */
final class PasswordRules {
  static final int MIN_LENGTH = 12;
  static final int MAX_BYTES = 72;
  private static final Set<String> COMMON = load();
  private static final String[] RUNS = {"abcdefghijklmnopqrstuvwxyz", "01234567890", "qwertyuiop", "asdfghjkl",
      "zxcvbnm", "1qaz2wsx3edc4rfv", "qazwsxedcrfv"};

  private PasswordRules() {}

  /** @throws IllegalArgumentException starting {@code password:} with what is wrong */
  static void check(String username, String password) {
    if (password == null || password.length() < MIN_LENGTH
        || password.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      throw new IllegalArgumentException("password: " + MIN_LENGTH + " to " + MAX_BYTES + " characters (bytes)");
    }
    String lower = password.toLowerCase(Locale.ROOT);
    if (username != null && username.length() >= 3 && lower.contains(username.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException("password: must not contain the user name");
    }
    if (password.chars().distinct().count() < 5) {
      throw new IllegalArgumentException("password: needs at least 5 different characters");
    }
    String core = core(lower);
    if (COMMON.contains(core) || COMMON.contains(lower) || isRun(core) || repeats(core)) {
      throw new IllegalArgumentException("password: too common or too easy to guess (a known password, word or"
          + " keyboard run); use a passphrase of unrelated words or a password manager");
    }
  }

  /** The password with digits and symbols at its ends taken off and look-alikes read as letters. */
  static String core(String lower) {
    String stripped = lower.replaceAll("^[^a-z@$]+|[^a-z@$]+$", "");
    StringBuilder b = new StringBuilder();
    for (char c : stripped.toCharArray()) {
      b.append(switch (c) {
        case '@', '4' -> 'a';
        case '0' -> 'o';
        case '1', '!', '|' -> 'i';
        case '3' -> 'e';
        case '$', '5' -> 's';
        case '7', '+' -> 't';
        default -> c;
      });
    }
    return b.toString();
  }

  /** Whether the text is part of an alphabet, digit or keyboard run, either way. */
  private static boolean isRun(String s) {
    if (s.length() < 4) {
      return s.isEmpty();
    }
    for (String run : RUNS) {
      if (run.contains(s) || new StringBuilder(run).reverse().toString().contains(s)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the text is one short piece repeated ({@code abcabcabcabc}, {@code passpass}). */
  private static boolean repeats(String s) {
    for (int len = 1; len <= s.length() / 2; len++) {
      if (s.length() % len == 0 && s.substring(0, len).repeat(s.length() / len).equals(s)) {
        String piece = s.substring(0, len);
        return len < 6 || COMMON.contains(piece);
      }
    }
    return false;
  }

  private static Set<String> load() {
    try (InputStream in = PasswordRules.class.getClassLoader().getResourceAsStream("console/common-passwords.txt")) {
      if (in == null) {
        throw new IllegalStateException("missing resource console/common-passwords.txt");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#")).collect(Collectors.toUnmodifiableSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
