package dev.herald.spi;

import dev.herald.DeliveryResult;
import java.util.concurrent.CompletionStage;

/**
 * Delivers notices somewhere: an in-process handler, an HTTP endpoint, a broker. One method, async:
 * the engine never blocks on a channel, and a channel decides its own threading.
 *
 * <p>A channel reports failures as a {@link DeliveryResult} ({@code RETRY} or {@code FAIL}); an
 * exception, thrown or completed exceptionally, counts as {@code RETRY} with the exception as the
 * error.
 */
public interface Channel extends AutoCloseable {
  /** The name definitions use to pick this channel, e.g. {@code local} or {@code http}. */
  String name();

  /** Starts one attempt. */
  CompletionStage<DeliveryResult> deliver(Delivery delivery);

  /**
   * Checks, when a definition is saved, that this channel can deliver to {@code target}.
   *
   * @throws dev.herald.InvalidInputException naming field {@code target} if it cannot
   */
  default void validateTarget(String target) {}

  /**
   * Whether a definition of this channel may have no target of its own ({@link
   * dev.herald.NoticeDefinition#perNoticeTarget()}), each notice giving its own. No by default: saving
   * such a definition is refused. A channel that answers yes gets definitions with a null target in
   * {@link #validate} and deliveries whose {@link Delivery#target()} is always the notice's.
   */
  default boolean perNoticeTargets() {
    return false;
  }

  /**
   * Checks, when a definition is saved, its target and the channel options it sets.
   *
   * @throws dev.herald.InvalidInputException naming the bad field ({@code target}, {@code options.<key>})
   */
  default void validate(dev.herald.NoticeDefinition definition) {
    validateTarget(definition.target());
  }

  /**
   * The options a definition of this channel may set. When it declares any, saving a definition
   * refuses a key that neither it nor an {@link OptionOwner} declares ("did you mean"), and checks
   * each value's type, before {@link #validate}. A channel that declares none is left to check its
   * options itself in {@link #validate}.
   */
  default java.util.List<DefinitionOption> options() {
    return java.util.List.of();
  }

  /** {@link #maxConcurrentPerReceiver}: this channel sets no limit of its own. */
  int NO_LIMIT_OF_ITS_OWN = 0;

  /**
   * How many attempts of {@code definition}'s notices this channel takes at once per receiver (an
   * endpoint's origin, a broker's target). The engine starts that many and keeps the others waiting in
   * the receiver's line, started as places free, instead of handing them over only to be refused. A
   * channel that answers {@link #NO_LIMIT_OF_ITS_OWN} (the default) gets the engine's {@code
   * maxConcurrentPerReceiver}. Called per attempt: keep it cheap.
   */
  default int maxConcurrentPerReceiver(dev.herald.NoticeDefinition definition) {
    return NO_LIMIT_OF_ITS_OWN;
  }

  /**
   * The state of what this channel talks to: brokers, mail servers, endpoints. None by default (an
   * in-process channel talks to nothing). Read often, by health checks and metrics: keep it cheap.
   */
  default java.util.List<PeerStatus> peers() {
    return java.util.List.of();
  }

  @Override
  default void close() {}
}
