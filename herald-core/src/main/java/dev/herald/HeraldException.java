package dev.herald;

/** Root of every exception Herald throws. Unchecked: callers decide where to handle it. */
public class HeraldException extends RuntimeException {
  public HeraldException(String message) {
    super(message);
  }

  public HeraldException(String message, Throwable cause) {
    super(message, cause);
  }
}
