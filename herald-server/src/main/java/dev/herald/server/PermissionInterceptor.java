package dev.herald.server;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/** Refuses with 403 a caller without the permission its route {@link Requires}, as {@link Access} says. */
final class PermissionInterceptor implements HandlerInterceptor {
  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
    Permission needed = handler instanceof HandlerMethod m ? required(m) : null;
    Caller caller = ApiFilter.caller(request);
    // no caller: an open route, or a receiver's confirm by capability (its controller checks the capability)
    if (needed == null || caller == null || Access.may(caller, needed)) {
      return true;
    }
    ApiTokens.Info token = (ApiTokens.Info) request.getAttribute(ApiFilter.CALLER);
    String route = request.getMethod() + " " + request.getRequestURI();
    if (token.role().grants().contains(needed)) { // the role has it, but not for a caller of one tenant
      throw ApiException.forbidden(route + " " + needed.what() + ": it needs an admin token of every tenant;"
          + " this one is tenant " + caller.tenant() + "'s");
    }
    // admin tokens have every permission: what a token lacks, an admin token has
    throw ApiException.forbidden(route + " needs an admin token; token '" + token.name() + "' has role "
        + token.role().text());
  }

  /** What the route needs: its own {@link Requires}, else its controller's; null for an open route. */
  static Permission required(HandlerMethod m) {
    Requires own = m.getMethodAnnotation(Requires.class);
    Requires controller = m.getBeanType().getAnnotation(Requires.class);
    return own != null ? own.value() : controller != null ? controller.value() : null;
  }
}
