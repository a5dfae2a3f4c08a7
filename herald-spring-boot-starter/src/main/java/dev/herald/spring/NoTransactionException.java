package dev.herald.spring;

import dev.herald.HeraldException;

/**
 * A notice was published with no Spring transaction active on the thread. It would commit on its
 * own, and be delivered even if the business work it belongs to rolled back (or was never in a
 * transaction): a forgotten {@code @Transactional}, a {@code @Transactional} method called from its
 * own class (Spring's proxy does not see self-invocation), or a thread of its own such as a
 * {@code CompletableFuture}'s. Refused unless {@code herald.publisher.require-transaction=false}.
 */
public class NoTransactionException extends HeraldException {
  /** The property that lets notices published outside a transaction commit on their own. */
  public static final String PROPERTY = "herald.publisher.require-transaction";

  public NoTransactionException(String definitions) {
    super("no Spring transaction is active on this thread: the notice of " + definitions + " would commit on"
        + " its own, delivered even if your business work rolls back. Publish inside a @Transactional method,"
        + " called through its bean (a call from its own class skips Spring's proxy) on the transaction's thread"
        + " (not a CompletableFuture's); use publishAndDeliver for sync-first delivery; or, for notices that"
        + " stand alone, set " + PROPERTY + "=false.");
  }
}
