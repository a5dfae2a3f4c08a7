package dev.herald.channel.mail;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;

/**
 * A definition's mail options, read and checked.
 *
 * @param cc option {@code cc}: comma-separated addresses; empty if none
 * @param from option {@code from}: the sender, overriding the channel's; null for the channel's
 * @param subject option {@code subject} (required)
 * @param text option {@code text}: the plain-text body; {@code \n} in it is a line break
 * @param html option {@code html}: the HTML body; at least one of {@code text} and {@code html}
 */
record MailOptions(InternetAddress[] cc, InternetAddress from, Template subject, Template text, Template html) {
  static final String CC = "cc";
  static final String FROM = "from";
  static final String SUBJECT = "subject";
  static final String TEXT = "text";
  static final String HTML = "html";
  /** Every option this channel reads. */
  static final java.util.List<dev.herald.spi.DefinitionOption> DECLARED = java.util.List.of(
      dev.herald.spi.DefinitionOption.text(SUBJECT, "the subject, with {{placeholders}}; required"),
      dev.herald.spi.DefinitionOption.text(TEXT, "the plain-text body, with {{placeholders}}"),
      dev.herald.spi.DefinitionOption.text(HTML, "the HTML body, with {{placeholders}} (escaped)"),
      dev.herald.spi.DefinitionOption.text(CC, "comma-separated addresses"),
      dev.herald.spi.DefinitionOption.text(FROM, "the sender, instead of the channel's"));

  /** @throws InvalidInputException naming {@code options.<key>} */
  static MailOptions of(NoticeDefinition d) {
    String cc = d.option(CC, null);
    String from = d.option(FROM, null);
    String subject = d.option(SUBJECT, null);
    if (subject == null || subject.isBlank()) {
      throw new InvalidInputException("options." + SUBJECT, "is required for the mail channel");
    }
    String text = d.option(TEXT, null);
    String html = d.option(HTML, null);
    if (text == null && html == null) {
      throw new InvalidInputException("options." + TEXT, "a mail needs a body: set options.text, options.html or both");
    }
    return new MailOptions(
        cc == null ? new InternetAddress[0] : addresses(cc, "options." + CC),
        from == null ? null : address(from, "options." + FROM),
        Template.parse(subject, "options." + SUBJECT),
        text == null ? null : Template.parse(text.replace("\\n", "\n"), "options." + TEXT),
        html == null ? null : Template.parse(html, "options." + HTML));
  }

  /** Parses comma-separated addresses, strictly (RFC 822 syntax, at least one). */
  static InternetAddress[] addresses(String list, String field) {
    try {
      InternetAddress[] a = InternetAddress.parse(list, true);
      if (a.length == 0) {
        throw new InvalidInputException(field, "must name at least one e-mail address");
      }
      for (InternetAddress x : a) {
        x.validate();
      }
      return a;
    } catch (AddressException e) {
      throw new InvalidInputException(field, "'" + list + "' is not a list of e-mail addresses: " + e.getMessage());
    }
  }

  static InternetAddress address(String one, String field) {
    InternetAddress[] a = addresses(one, field);
    if (a.length != 1) {
      throw new InvalidInputException(field, "must be one e-mail address, was " + a.length);
    }
    return a[0];
  }
}
