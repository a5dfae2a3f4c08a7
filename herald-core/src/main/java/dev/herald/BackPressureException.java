package dev.herald;

/**
 * Herald refuses new notices for now because too many are due and not yet delivered (flow
 * control). Nothing was written; try again later. The HTTP API answers it with 503 and Retry-After.
 */
public class BackPressureException extends HeraldException {
  private final int backlog;
  private final int limit;

  public BackPressureException(int backlog, int limit) {
    super("back-pressure: " + backlog + " notices are due and undelivered, above the limit of " + limit
        + "; nothing was written, try again later");
    this.backlog = backlog;
    this.limit = limit;
  }

  public int backlog() {
    return backlog;
  }

  public int limit() {
    return limit;
  }
}
