package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Marks a request whose 5xx answer is planned (a feature's receiver failing on purpose), so that
 * the request log does not report it as the server failing.
 */
public final class PlannedFailures {
  static final String ATTRIBUTE = "herald.server.planned-failure";

  private PlannedFailures() {}

  public static void mark(HttpServletRequest request) {
    request.setAttribute(ATTRIBUTE, Boolean.TRUE);
  }

  static boolean marked(HttpServletRequest request) {
    return request.getAttribute(ATTRIBUTE) != null;
  }
}
