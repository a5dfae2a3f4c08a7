package dev.herald.channel.mail;

import dev.herald.DeliveryResult;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.MessagingException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.eclipse.angus.mail.smtp.SMTPSenderFailedException;

/**
 * What a failed send means: a 5xx reply (permanent: unknown mailbox, refused sender, bad
 * credentials) fails the notice for good; a 4xx reply (mailbox busy, greylisting, server short of
 * resources) or a connection error is retried.
 */
public final class SmtpOutcome {
  private static final Pattern LEADING_CODE = Pattern.compile("^\\s*([245]\\d\\d)[ -]");

  private SmtpOutcome() {}

  /**
   * The result of a send that failed: a 5xx reply {@code FAIL}, a 4xx reply or no reply (connection
   * error) {@code RETRY}, with the server's reply text.
   *
   * @param server {@code host:port}, for the message
   */
  public static DeliveryResult of(MessagingException e, String server) {
    int worst = 0; // highest reply code seen: one permanent refusal makes the whole send hopeless
    String reply = null;
    for (Throwable t : chain(e)) {
      int code = code(t);
      if (code > worst) {
        worst = code;
        reply = t.getMessage();
      }
    }
    if (worst >= 500) {
      return DeliveryResult.fail("SMTP " + server + " refused for good (" + worst + "): " + oneLine(reply));
    }
    if (worst >= 400) {
      return DeliveryResult.retry("SMTP " + server + " refused for now (" + worst + "): " + oneLine(reply));
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return DeliveryResult.retry("SMTP " + server + ": " + oneLine(e.getMessage())
        + (root != e ? " (" + root.getClass().getSimpleName() + ": " + oneLine(root.getMessage()) + ")" : ""));
  }

  /**
   * Whether the server answered at all: any reply but {@code 421} (service not available) means it is
   * up, even one refusing a recipient; no reply (cannot connect, timed out) means it is not.
   */
  public static boolean serverAnswered(MessagingException e) {
    int worst = 0;
    for (Throwable t : chain(e)) {
      worst = Math.max(worst, code(t));
    }
    return worst != 0 && worst != 421;
  }

  private static int code(Throwable t) {
    if (t instanceof SMTPAddressFailedException a) {
      return a.getReturnCode();
    }
    if (t instanceof SMTPSenderFailedException s) {
      return s.getReturnCode();
    }
    if (t instanceof SMTPSendFailedException s) {
      return s.getReturnCode();
    }
    if (t instanceof AuthenticationFailedException && t.getMessage() != null) {
      Matcher m = LEADING_CODE.matcher(t.getMessage());
      return m.find() ? Integer.parseInt(m.group(1)) : 535;
    }
    return 0;
  }

  private static List<Throwable> chain(MessagingException e) {
    List<Throwable> out = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> todo = new ArrayList<>(List.of(e));
    while (!todo.isEmpty()) {
      Throwable t = todo.removeLast();
      if (t == null || !seen.add(t)) {
        continue;
      }
      out.add(t);
      todo.add(t.getCause());
      if (t instanceof MessagingException m) {
        todo.add(m.getNextException());
      }
    }
    return out;
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", " ");
  }
}
