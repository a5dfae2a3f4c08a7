package dev.herald;

/** A unit of work run by {@link Herald#inTransaction}: business writes and notices, committed together. */
@FunctionalInterface
public interface TransactionWork<T> {
  T run(NoticeTransaction tx) throws Exception;
}
