package dev.herald.server.alerts;

import tools.jackson.databind.JsonNode;

/** The words of an alert e-mail, from the alert's JSON. */
final class AlertText {
  private AlertText() {}

  static String subject(JsonNode a) {
    String def = a.path("definition").asString("");
    if ("recovered".equals(a.path("kind").asString(""))) {
      return "[Herald] " + def + " recovered";
    }
    int count = a.path("count").asInt(1);
    return "[Herald] " + def + ": " + count + (count == 1 ? " failure" : " failures");
  }

  static String body(JsonNode a) {
    StringBuilder b = new StringBuilder();
    if ("recovered".equals(a.path("kind").asString(""))) {
      b.append("Definition ").append(a.path("definition").asString("")).append(" delivers again.\n");
    } else {
      b.append(a.path("count").asInt(1)).append(" alert(s) for definition ").append(a.path("definition").asString(""))
          .append(" since ").append(a.path("since").asString("")).append(".\n\n")
          .append("Last notice: ").append(a.path("noticeId").asString("")).append(" (")
          .append(a.path("status").asString("")).append(", ").append(a.path("failures").asInt())
          .append(" failed attempt(s))\n")
          .append("Last error: ").append(a.path("error").asString("")).append('\n');
    }
    b.append("\nAt ").append(a.path("at").asString("")).append(". See the console: /console/notices?definition=")
        .append(a.path("definition").asString("")).append('\n');
    return b.toString();
  }
}
