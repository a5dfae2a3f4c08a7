package dev.herald.server.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * An attempt's detail as the notice page shows it: the verdict line, and for a webhook the response's
 * status, its headers that matter and the start of its body; the whole exchange (request and
 * response, as the HTTP channel logs it with {@code >} and {@code <} lines) stays available, folded.
 *
 * @param summary the first line: the verdict, e.g. {@code HTTP 503 Service Unavailable}
 * @param status the response's status line, e.g. {@code HTTP/1.1 503}; empty if no response
 * @param headers the key response headers, {@code name: value}
 * @param body the start of the response body; empty if none
 * @param full the whole detail; empty when it is the summary alone
 */
record AttemptView(String summary, String status, List<String> headers, String body, String full) {
  /** Response headers worth seeing at a glance. */
  static final Set<String> KEY_HEADERS = Set.of("content-type", "retry-after", "location", "www-authenticate",
      "x-request-id", "request-id");
  /** Characters of a response body shown unfolded. */
  static final int BODY_EXCERPT = 300;

  static AttemptView of(String detail) {
    String[] lines = detail.split("\n", -1);
    String summary = lines[0];
    String status = "";
    List<String> headers = new ArrayList<>();
    StringBuilder body = new StringBuilder();
    boolean inBody = false;
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (!line.startsWith("<")) {
        continue;
      }
      String content = line.length() > 2 ? line.substring(2) : "";
      if (line.equals("<")) {
        inBody = true; // the blank line between a response's headers and its body
      } else if (status.isEmpty() && content.startsWith("HTTP/")) {
        status = content;
      } else if (inBody) {
        if (body.length() < BODY_EXCERPT) {
          body.append(body.isEmpty() ? "" : "\n").append(content);
        }
      } else if (content.contains(": ")) {
        String name = content.substring(0, content.indexOf(": ")).toLowerCase(Locale.ROOT);
        if (KEY_HEADERS.contains(name)) {
          headers.add(content);
        }
      }
    }
    String excerpt = body.length() > BODY_EXCERPT ? body.substring(0, BODY_EXCERPT) + "..." : body.toString();
    return new AttemptView(summary, status, List.copyOf(headers), excerpt, lines.length > 1 ? detail : "");
  }
}
