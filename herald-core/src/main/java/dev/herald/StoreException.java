package dev.herald;

/** The database failed or could not be reached. Nothing Herald promised was acknowledged. */
public class StoreException extends HeraldException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
