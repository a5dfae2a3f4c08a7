package dev.herald.intake;

import dev.herald.HeraldException;

/** A message that can never become a notice; it is parked with this reason, not retried. */
public class MalformedMessageException extends HeraldException {
  public MalformedMessageException(String reason) {
    super(reason);
  }
}
