package dev.herald;

/** What a handler sees of one attempt. */
public final class NoticeContext {
  private final Notice notice;
  private final NoticeDefinition definition;
  private final int attempt;
  private final String traceparent;
  private volatile String description;

  public NoticeContext(Notice notice, NoticeDefinition definition, int attempt) {
    this(notice, definition, attempt, notice.traceparent());
  }

  /** @param traceparent this attempt's W3C trace context (its own span when traced, else the notice's) */
  public NoticeContext(Notice notice, NoticeDefinition definition, int attempt, String traceparent) {
    this.notice = notice;
    this.definition = definition;
    this.attempt = attempt;
    this.traceparent = traceparent;
  }

  public Notice notice() {
    return notice;
  }

  /** The JSON payload, as enqueued. */
  public String payload() {
    return notice.payload();
  }

  public NoticeDefinition definition() {
    return definition;
  }

  /** This attempt's number: 1 for the first. */
  public int attempt() {
    return attempt;
  }

  /**
   * This attempt's W3C {@code traceparent}, to continue the notice's trace in the handler's own calls:
   * the attempt's span when attempts are traced, else the notice's; null if it has none.
   */
  public String traceparent() {
    return traceparent;
  }

  /** Replaces the notice's description (context for operators), recorded with this attempt's outcome. */
  public void describe(String text) {
    this.description = text;
  }

  /** The description set by {@link #describe}, or null. */
  public String newDescription() {
    return description;
  }
}
