package dev.herald.spring;

import dev.herald.HeraldException;

/**
 * Herald cannot start with the application's configuration. The message names the property or the
 * bean at fault and why; {@link #action()} says what to change. Reported at start-up by {@link
 * HeraldFailureAnalyzer}.
 */
public class HeraldConfigurationException extends HeraldException {
  private final String source;
  private final String action;

  /**
   * @param source the property ({@code herald.definitions.x.retry}) or bean ({@code bean 'orders'}) at fault
   * @param reason what is wrong with it
   * @param action what to do about it
   */
  public HeraldConfigurationException(String source, String reason, String action) {
    this(source, reason, action, null);
  }

  public HeraldConfigurationException(String source, String reason, String action, Throwable cause) {
    super(source + ": " + reason, cause);
    this.source = source;
    this.action = action;
  }

  /** The property or bean at fault. */
  public String source() {
    return source;
  }

  /** What to change. */
  public String action() {
    return action;
  }
}
