package dev.herald;

/**
 * The W3C Trace Context {@code traceparent} value a notice keeps: {@code 00-<32 hex trace id>-<16
 * hex parent id>-<2 hex flags>}, lower case, neither id all zeros.
 */
public final class Traceparent {
  /** The header and field name, as the W3C specification spells it. */
  public static final String HEADER = "traceparent";

  private Traceparent() {}

  /** Whether {@code value} is a version-00 traceparent Herald keeps. */
  public static boolean isValid(String value) {
    if (value == null || value.length() != 55 || !value.startsWith("00-") || value.charAt(35) != '-'
        || value.charAt(52) != '-') {
      return false;
    }
    return hex(value, 3, 35) && hex(value, 36, 52) && hex(value, 53, 55)
        && !zeros(value, 3, 35) && !zeros(value, 36, 52);
  }

  /** The value if it is valid, else null: for context taken from elsewhere, where a bad one is ignored. */
  public static String orNull(String value) {
    return isValid(value) ? value : null;
  }

  /** The 32 hex digits of the trace id of a valid traceparent. */
  public static String traceId(String traceparent) {
    return traceparent.substring(3, 35);
  }

  /**
   * A traceparent from its parts; a 64-bit (16 hex digit) trace id is padded to 128 bits as the
   * specification asks. Null if the parts do not make a valid one.
   */
  public static String of(String traceId, String spanId, boolean sampled) {
    if (traceId == null || spanId == null) {
      return null;
    }
    String trace = traceId.length() == 16 ? "0000000000000000" + traceId : traceId;
    return orNull("00-" + trace + "-" + spanId + "-" + (sampled ? "01" : "00"));
  }

  private static boolean hex(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  private static boolean zeros(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }
}
