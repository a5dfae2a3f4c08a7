package dev.herald;

/** What a handler sees of one attempt. */
public final class NoticeContext {
  private final Notice notice;
  private final NoticeDefinition definition;
  private final int attempt;
  private volatile String description;

  public NoticeContext(Notice notice, NoticeDefinition definition, int attempt) {
    this.notice = notice;
    this.definition = definition;
    this.attempt = attempt;
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

  /** Replaces the notice's description (context for operators), recorded with this attempt's outcome. */
  public void describe(String text) {
    this.description = text;
  }

  /** The description set by {@link #describe}, or null. */
  public String newDescription() {
    return description;
  }
}
