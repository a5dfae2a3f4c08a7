package dev.herald;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * What operators do to notices. The HTTP API and the console call exactly these; each change is
 * checked against the status machine and applied optimistically.
 */
public interface NoticeOperations {

  /** A live or archived notice with its attempt log. */
  Optional<NoticeDetail> find(UUID id);

  /** Searches live and archived notices, newest first. */
  Page<Notice> query(NoticeQuery query);

  /**
   * Makes a notice due now with a fresh attempt budget; works on waiting, failed and finished
   * notices (finished ones come back from history).
   *
   * @throws IllegalTransitionException if another node is delivering it right now
   */
  Notice resend(UUID id);

  /**
   * Stops a notice from being delivered again and archives it as CANCELLED.
   *
   * @throws IllegalTransitionException if it already finished
   */
  Notice cancel(UUID id);

  /**
   * Confirms a delivered notice that waits for confirmation; it becomes SUCCEEDED.
   *
   * @throws IllegalTransitionException if it is not awaiting confirmation
   */
  Notice confirm(UUID id);

  /**
   * Changes the payload, fire time or target of a notice that has not been delivered yet (PENDING
   * or FAILED, or held by this node and not started). Checks each field as enqueue does.
   *
   * @throws IllegalTransitionException if it was delivered, finished, or is being delivered
   */
  Notice edit(UUID id, NoticeEdit edit);

  /** Re-queues the DEAD notices of a definition that died within [from, to); returns how many. */
  int recoverDead(String definition, Instant from, Instant to);
}
