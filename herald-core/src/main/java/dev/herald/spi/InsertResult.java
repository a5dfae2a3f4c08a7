package dev.herald.spi;

/**
 * The outcome of an insert.
 *
 * @param row the stored row: the new one, or the existing one with the same idempotency key
 * @param created false if the idempotency key matched an existing notice
 */
public record InsertResult(NoticeRow row, boolean created) {}
