package dev.herald;

/**
 * A notice as {@link NoticeTransaction#enqueueAllResults} wrote it.
 *
 * @param notice the stored notice
 * @param created false when a notice with the request's idempotency key existed already and is
 *     returned instead of a new one
 */
public record EnqueueResult(Notice notice, boolean created) {}
