package dev.herald.server;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * In front of every request: authenticates API calls by bearer token, and logs one line per request
 * (debug; 5xx at warn). Everything under {@code /api/} needs a valid token except the OpenAPI
 * description; {@code /actuator/health} stays open.
 */
final class ApiFilter extends OncePerRequestFilter {
  static final String CALLER = "herald.server.caller";
  /** The {@link Caller} of an authenticated request. */
  static final String SCOPE = "herald.server.caller.scope";
  private static final java.util.regex.Pattern CONFIRM =
      java.util.regex.Pattern.compile("/api/v1/notices/[0-9a-fA-F-]{36}/confirm");
  private static final Logger log = LoggerFactory.getLogger("dev.herald.server.requests");

  private final ApiTokens tokens;
  private final JsonMapper mapper;
  private final java.time.Duration retryAfter;

  ApiFilter(ApiTokens tokens, JsonMapper mapper, java.time.Duration retryAfter) {
    this.tokens = tokens;
    this.mapper = mapper;
    this.retryAfter = retryAfter;
  }

  /** Who called; null for a request without a token (a receiver's confirm by capability). */
  static Caller caller(HttpServletRequest request) {
    return (Caller) request.getAttribute(SCOPE);
  }

  /**
   * A receiver's confirm by the notice's capability: POST to the notice's confirm route with the
   * capability parameter and no token (the controller checks the capability).
   */
  static boolean isCapabilityConfirm(HttpServletRequest request, String path) {
    return request.getHeader("Authorization") == null && request.getMethod().equals("POST")
        && CONFIRM.matcher(path).matches() && request.getParameter(ConfirmCapability.PARAMETER) != null;
  }

  /** Whether a path (decoded and normalized, as it is routed) is served without a token. */
  static boolean isOpen(String path) {
    return !path.startsWith("/api/") || path.equals("/api/v1/openapi.json") || path.equals("/api/v1/openapi.yaml");
  }

  /**
   * The path as Spring MVC routes it: decoded, with dot segments and path parameters removed by the
   * servlet container. (The raw request URI is not: {@code /x/../api/v1/notices} must not pass as open.)
   */
  static String routedPath(HttpServletRequest request) {
    String servletPath = request.getServletPath();
    String info = request.getPathInfo();
    return (servletPath == null ? "" : servletPath) + (info == null ? "" : info);
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long t0 = System.nanoTime();
    try {
      String path = routedPath(request);
      if (isOpen(path) || isCapabilityConfirm(request, path) || authenticate(request, response)) {
        chain.doFilter(request, response);
      }
    } finally {
      logLine(request, response, t0);
    }
  }

  /** True if the caller presented a valid token; otherwise answers 401 (or 503) and returns false. */
  private boolean authenticate(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String header = request.getHeader("Authorization");
    String token = null;
    if (header != null && header.length() > 7 && header.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
      token = header.substring(7).strip();
    }
    if (token == null) {
      response.setHeader("WWW-Authenticate", "Bearer realm=\"herald\"");
      Problems.write(request, response, ApiException.of(401, "unauthorized", header == null
          ? "this API needs a token: send Authorization: Bearer <token>"
          : "the Authorization header must be 'Bearer <token>'"), mapper);
      return false;
    }
    Optional<ApiTokens.Info> found;
    try {
      found = tokens.authenticate(token);
    } catch (ApiTokens.StoreUnavailable e) {
      log.warn("{}", e.getMessage());
      Problems.write(request, response, ApiException.unavailable("unavailable", e.getMessage(), retryAfter), mapper);
      return false;
    }
    if (found.isEmpty()) {
      response.setHeader("WWW-Authenticate", "Bearer realm=\"herald\", error=\"invalid_token\"");
      Problems.write(request, response,
          ApiException.of(401, "unauthorized", "the token is not valid (unknown or revoked)"), mapper);
      return false;
    }
    request.setAttribute(CALLER, found.get());
    request.setAttribute(SCOPE, Caller.of(found.get(), request.getRemoteAddr()));
    return true;
  }

  private static void logLine(HttpServletRequest request, HttpServletResponse response, long t0) {
    int status = response.getStatus();
    boolean failed = status >= 500 && !PlannedFailures.marked(request);
    if (!(log.isDebugEnabled() || failed)) {
      return;
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    String query = request.getQueryString();
    Object caller = request.getAttribute(CALLER);
    String who = caller instanceof ApiTokens.Info t ? t.name() + "/" + t.role().text()
        + (t.tenant() == null ? "" : "/" + t.tenant()) : "-";
    Object problem = request.getAttribute(Problems.DETAIL_ATTRIBUTE);
    String line = request.getMethod() + " " + request.getRequestURI() + (query == null ? "" : "?" + query)
        + " -> " + status + " in " + ms + " ms, token " + who + (problem == null ? "" : ": " + problem);
    if (failed) {
      log.warn("{}", line);
    } else {
      log.debug("{}", line);
    }
  }
}
