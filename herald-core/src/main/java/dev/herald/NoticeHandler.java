package dev.herald;

/**
 * Delivers notices in-process. Registered by name; a definition targets it with {@code
 * .handler(name)}. Return a {@link DeliveryResult}; an exception counts as a failed attempt (and is
 * retried on the definition's schedule). It never reaches the code that enqueued the notice.
 */
@FunctionalInterface
public interface NoticeHandler {
  DeliveryResult handle(NoticeContext context) throws Exception;
}
