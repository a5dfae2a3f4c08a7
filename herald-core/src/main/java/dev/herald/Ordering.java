package dev.herald;

import java.util.Locale;

/**
 * Whether a definition delivers the notices that share an ordering key one at a time, in the order
 * they were enqueued (see {@link NoticeRequest#orderingKey(String)}), and what the rest of a key does
 * when its head goes DEAD.
 *
 * <p>Text forms (for storage and configuration): {@code none}, {@code wait}, {@code skip}.
 */
public enum Ordering {
  /** No ordering: notices are delivered as they fall due, in parallel. Notices may not carry a key. */
  NONE,
  /**
   * One at a time per key; a DEAD head holds back the rest of its key until an operator resends or
   * recovers it (to deliver it) or cancels it after a resend (to skip it). Nothing overtakes it.
   */
  WAIT,
  /** One at a time per key; a DEAD head is passed over and the rest of its key goes on. */
  SKIP;

  /** Whether notices of such a definition may carry an ordering key. */
  public boolean ordered() {
    return this != NONE;
  }

  /** The text form: {@code none}, {@code wait} or {@code skip}. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Reads a text form, case-insensitively; errors name the field {@code ordering}. */
  public static Ordering parse(String text) {
    if (text == null || text.isBlank()) {
      return NONE;
    }
    try {
      return valueOf(text.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("ordering", "'" + text + "' is not one of none, wait, skip");
    }
  }
}
