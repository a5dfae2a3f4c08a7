package dev.herald.server;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.channel.http.HttpChannel;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;

/**
 * Checks where a definition's alerts go when it is saved: {@code alert.webhook} must be a URL the
 * webhook channel may call (the SSRF guard), {@code alert.email} well-formed addresses. A bad one is
 * refused with 400 naming {@code options.alert.webhook} or {@code options.alert.email}, instead of
 * failing at every alert.
 */
public final class AlertTargets {
  static final String WEBHOOK = "alert.webhook";
  static final String EMAIL = "alert.email";

  private final HttpChannel http;

  AlertTargets(HttpChannel http) {
    this.http = http;
  }

  /** @throws InvalidInputException naming {@code options.alert.webhook} or {@code options.alert.email} */
  public void check(NoticeDefinition d) {
    String webhook = d.options().get(WEBHOOK);
    if (webhook != null && !webhook.isBlank()) {
      checkWebhook(webhook);
    }
    String email = d.options().get(EMAIL);
    if (email != null && !email.isBlank()) {
      checkEmail(email);
    }
  }

  /** @throws InvalidInputException naming {@code options.alert.email} */
  public void checkEmail(String email) {
    try {
      InternetAddress[] to = InternetAddress.parse(email.strip(), true);
      if (to.length == 0 || to.length > 50) {
        throw new InvalidInputException("options." + EMAIL, "must be 1 to 50 e-mail addresses separated by commas");
      }
    } catch (AddressException e) {
      throw new InvalidInputException("options." + EMAIL, "is not a list of e-mail addresses: " + e.getMessage());
    }
  }

  /** @throws InvalidInputException naming {@code options.alert.webhook} */
  public void checkWebhook(String url) {
    if (url.length() > 2000 || url.strip().contains(" ")) {
      throw new InvalidInputException("options." + WEBHOOK, "must be one http or https URL of at most 2000 characters");
    }
    try {
      http.validateTarget(url.strip());
    } catch (InvalidInputException e) {
      throw new InvalidInputException("options." + WEBHOOK, e.reason());
    }
  }
}
