package dev.herald.server;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What an API route needs: callers without it get 403 ({@link PermissionInterceptor}). On a
 * controller it is the default of its routes; a route's own replaces it.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@interface Requires {
  Permission value();
}
