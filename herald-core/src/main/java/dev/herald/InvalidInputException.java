package dev.herald;

/**
 * Input that Herald refuses. Names the offending field (a {@link FieldPath} such as {@code payload} or
 * {@code definition.retrySchedule}) and says why; nothing was written.
 */
public class InvalidInputException extends HeraldException {
  private final FieldPath path;
  private final String reason;

  public InvalidInputException(FieldPath path, String reason) {
    super(path + ": " + reason);
    this.path = path;
    this.reason = reason;
  }

  /** @param field the dotted path of the offending field, read by {@link FieldPath#parse} */
  public InvalidInputException(String field, String reason) {
    this(FieldPath.parse(field), reason);
  }

  /** The path of the offending field in its dotted form, e.g. {@code payload} or {@code notices[1].payload}. */
  public String field() {
    return path.toString();
  }

  /** The path of the offending field, for an adapter to render in its own shape. */
  public FieldPath path() {
    return path;
  }

  /** Why the value was refused, without the field name. */
  public String reason() {
    return reason;
  }
}
