package dev.herald;

/**
 * An engine setting Herald refuses: {@link #setting()} names which, so that an adapter shows it in
 * its own terms (the starter as {@code herald.<property>}), and {@link #reason()} says why.
 */
public class InvalidSettingException extends InvalidInputException {
  private final transient EngineSetting setting;

  public InvalidSettingException(EngineSetting setting, String reason) {
    super(setting.path(), reason);
    this.setting = setting;
  }

  /** The setting refused. */
  public EngineSetting setting() {
    return setting;
  }
}
