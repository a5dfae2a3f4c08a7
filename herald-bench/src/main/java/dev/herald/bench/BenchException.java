package dev.herald.bench;

/** A bench step that cannot go on; the message says why, for the person running it. */
final class BenchException extends RuntimeException {
  BenchException(String message) {
    super(message);
  }

  BenchException(String message, Throwable cause) {
    super(message, cause);
  }
}
