package dev.herald.server.alerts;

import dev.herald.NoticeDefinition;
import dev.herald.spi.DefinitionOption;
import dev.herald.spi.OptionOwner;
import java.util.List;

/**
 * A definition's {@code alert.*} options, whatever its channel: where its alerts go, and whether a
 * recovery is told. Registered with the engine (a bean the starter hands to Herald), which refuses
 * at save an {@code alert.*} key not declared here, naming the closest one (a misspelt one would be
 * stored and ignored, and the alert would go nowhere), and an {@code alert.recovered} that is not a
 * boolean. The addresses themselves are checked per tenant by {@code AlertTargets}.
 */
public final class AlertOptions implements OptionOwner {
  static final String EMAIL = "alert.email";
  static final String WEBHOOK = "alert.webhook";
  static final String RECOVERED = "alert.recovered";
  private static final List<DefinitionOption> DECLARED = List.of(
      DefinitionOption.text(EMAIL, "addresses (comma-separated) told of the definition's alerts"),
      DefinitionOption.text(WEBHOOK, "a URL sent the definition's alerts as signed webhooks"),
      DefinitionOption.bool(RECOVERED, "whether a success after alerts is told as \"recovered\""));

  @Override
  public String name() {
    return "alerts";
  }

  @Override
  public String namespace() {
    return "alert.";
  }

  @Override
  public List<DefinitionOption> options() {
    return DECLARED;
  }

  static boolean recovered(NoticeDefinition d) {
    return Boolean.parseBoolean(d.option(RECOVERED, "false").strip());
  }
}
