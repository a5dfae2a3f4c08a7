package dev.herald;

/**
 * Input that Herald refuses. Names the offending field (a dotted path such as {@code payload} or
 * {@code definition.retrySchedule}) and says why; nothing was written.
 */
public class InvalidInputException extends HeraldException {
  private final String field;
  private final String reason;

  public InvalidInputException(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
    this.reason = reason;
  }

  /** The path of the offending field, e.g. {@code payload}. */
  public String field() {
    return field;
  }

  /** Why the value was refused, without the field name. */
  public String reason() {
    return reason;
  }
}
