package dev.herald.server.alerts;

import java.util.ArrayList;
import java.util.List;
import org.springframework.web.util.HtmlUtils;
import tools.jackson.databind.JsonNode;

/**
 * An alert ({@link AlertMessage}'s JSON) in the words of an e-mail: a subject that tells the first
 * alert, its follow-up and the recovery apart at a glance, and the same lines as plain text and HTML.
 */
final class AlertMail {
  private AlertMail() {}

  /** The subject: {@code [Herald production] order-paid: notice DEAD after 10 attempts}, and so on. */
  static String subject(JsonNode a) {
    String prefix = "[Herald" + (a.path("environment").isString() ? " " + a.path("environment").asString() : "") + "] ";
    String def = a.path("definition").asString("");
    String endpoint = a.path("endpoint").isString() ? " at " + a.path("endpoint").asString() : "";
    return prefix + switch (a.path("kind").asString("")) {
      case AlertMessage.RECOVERED -> "RECOVERED " + def + ": delivers again" + endpoint;
      case AlertMessage.PEER_DOWN -> "DOWN " + peer(a) + " for " + duration(a.path("downForSeconds").asLong());
      case AlertMessage.PEER_UP -> "UP " + peer(a) + " again after " + duration(a.path("downForSeconds").asLong());
      default -> AlertMessage.FOLLOW_UP.equals(a.path("sequence").asString(""))
          ? "STILL FAILING " + def + endpoint + ": " + a.path("count").asInt() + " more failure(s) since "
              + a.path("since").asString("")
          : def + ": notice " + (a.path("finalFailure").asBoolean() ? "DEAD after " : "failed, ")
              + a.path("failures").asInt() + " failed attempt(s)" + endpoint;
    };
  }

  /** The body as lines: what happened, the notice, the links, who sent it. */
  static List<String> lines(JsonNode a) {
    List<String> l = new ArrayList<>();
    String def = a.path("definition").asString("");
    switch (a.path("kind").asString("")) {
      case AlertMessage.RECOVERED -> {
        l.add("Definition " + def + " delivers again" + (a.path("endpoint").isString() ? " to "
            + a.path("endpoint").asString() : "") + ": notice " + a.path("noticeId").asString("") + " was delivered.");
        l.add("It had been failing since " + a.path("since").asString("") + ".");
      }
      case AlertMessage.PEER_DOWN, AlertMessage.PEER_UP -> {
        boolean down = a.path("kind").asString("").equals(AlertMessage.PEER_DOWN);
        l.add("The " + peer(a) + (a.path("address").isString() ? " (" + a.path("address").asString() + ")" : "")
            + (down ? " cannot be reached since " + a.path("since").asString("") + " ("
                + duration(a.path("downForSeconds").asLong()) + "). Notices through it wait and are retried."
                : " answers again, after " + duration(a.path("downForSeconds").asLong()) + " down."));
        l.add("Failed attempts meanwhile: " + a.path("failedAttempts").asLong());
        if (a.path("lastError").isString()) {
          l.add("Last error: " + a.path("lastError").asString());
        }
      }
      default -> {
        boolean followUp = AlertMessage.FOLLOW_UP.equals(a.path("sequence").asString(""));
        l.add(followUp
            ? a.path("count").asInt() + " more failure(s) of definition " + def + " since " + a.path("since").asString("")
                + "; the latest:"
            : "A notice of definition " + def + (a.path("finalFailure").asBoolean()
                ? " failed for good (DEAD) after " : " failed; ") + a.path("failures").asInt() + " failed attempt(s).");
        JsonNode n = a.path("notice");
        l.add("Notice: " + a.path("noticeId").asString("") + (n.isObject() ? " (" + n.path("status").asString("")
            + " now, " + n.path("attempts").asInt() + " attempt(s))" : " (purged since)"));
        if (a.path("endpoint").isString()) {
          l.add("Endpoint: " + a.path("endpoint").asString());
        }
        l.add("Last error: " + a.path("error").asString("none"));
        if (n.isObject()) {
          if (n.path("description").isString()) {
            l.add("Description: " + n.path("description").asString());
          }
          String excerpt = n.path("payloadExcerpt").asString("");
          int length = n.path("payloadLength").asInt(excerpt.length());
          l.add("Payload" + (length > excerpt.length() ? " (first " + excerpt.length() + " of " + length
              + " characters)" : "") + ": " + excerpt);
        }
        l.add("Further failures of " + def + " here within " + duration(a.path("windowSeconds").asLong())
            + " are counted into one follow-up alert.");
      }
    }
    a.path("links").properties().forEach(e -> l.add(linkLabel(e.getKey()) + ": " + e.getValue().asString()));
    l.add("Sent by Herald on server " + a.path("server").asString("?")
        + (a.path("environment").isString() ? " in " + a.path("environment").asString() : "")
        + " at " + a.path("at").asString("") + ".");
    return l;
  }

  static String text(JsonNode a) {
    return String.join("\n", lines(a)) + "\n";
  }

  /** The same lines as HTML, links clickable, everything else escaped. */
  static String html(JsonNode a) {
    StringBuilder b = new StringBuilder("<html><body style=\"font-family:sans-serif\">");
    b.append("<h2>").append(HtmlUtils.htmlEscape(subject(a))).append("</h2>");
    for (String line : lines(a)) {
      int colon = line.indexOf(": ");
      String value = colon < 0 ? "" : line.substring(colon + 2);
      if (colon > 0 && (value.startsWith("http://") || value.startsWith("https://") || value.startsWith("/console"))) {
        b.append("<p><a href=\"").append(HtmlUtils.htmlEscape(value)).append("\">")
            .append(HtmlUtils.htmlEscape(line.substring(0, colon))).append("</a></p>");
      } else if (line.startsWith("Payload")) {
        b.append("<p>").append(HtmlUtils.htmlEscape(line.substring(0, colon + 1))).append("</p><pre>")
            .append(HtmlUtils.htmlEscape(value)).append("</pre>");
      } else {
        b.append("<p>").append(HtmlUtils.htmlEscape(line)).append("</p>");
      }
    }
    return b.append("</body></html>").toString();
  }

  private static String linkLabel(String key) {
    return switch (key) {
      case "notice" -> "Open the notice";
      case "notices" -> "Its definition's notices";
      case "definition" -> "The definition";
      case "endpoints" -> "Connections and endpoints";
      default -> key;
    };
  }

  private static String peer(JsonNode a) {
    return a.path("channel").asString("") + " " + a.path("peerKind").asString("") + " '" + a.path("peer").asString("")
        + "'";
  }

  static String duration(long seconds) {
    if (seconds < 60) {
      return seconds + "s";
    }
    if (seconds < 3600) {
      return seconds / 60 + "m" + (seconds % 60 == 0 ? "" : " " + seconds % 60 + "s");
    }
    return seconds / 3600 + "h" + (seconds % 3600 / 60 == 0 ? "" : " " + seconds % 3600 / 60 + "m");
  }
}
