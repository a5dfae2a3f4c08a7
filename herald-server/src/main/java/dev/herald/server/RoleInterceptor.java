package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/** Refuses client tokens on {@link AdminOnly} routes with 403. */
final class RoleInterceptor implements HandlerInterceptor {
  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
    if (handler instanceof HandlerMethod m && adminOnly(m)
        && request.getAttribute(ApiFilter.CALLER) instanceof ApiTokens.Info caller && caller.role() != Role.ADMIN) {
      throw ApiException.forbidden(request.getMethod() + " " + request.getRequestURI() + " needs an admin token; token '"
          + caller.name() + "' has role " + caller.role().text());
    }
    return true;
  }

  static boolean adminOnly(HandlerMethod m) {
    return m.hasMethodAnnotation(AdminOnly.class) || m.getBeanType().isAnnotationPresent(AdminOnly.class);
  }
}
