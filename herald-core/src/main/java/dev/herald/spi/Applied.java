package dev.herald.spi;

/** What became of one {@link Change} in {@link NoticeStore#apply}. */
public enum Applied {
  /** The stored version no longer matched: nothing was written. */
  STALE,
  /** Written as given. */
  APPLIED,
  /**
   * Written, and an early confirmation of the notice was waiting: it was consumed and the change's
   * {@link Change#ifConfirmed()} stored instead, without the change's alert.
   */
  CONFIRMED;

  /** Whether the change was written (as given or confirmed). */
  public boolean written() {
    return this != STALE;
  }
}
