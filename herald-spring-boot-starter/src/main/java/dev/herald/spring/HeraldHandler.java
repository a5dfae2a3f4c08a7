package dev.herald.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers a bean implementing {@link dev.herald.NoticeHandler} as the in-process handler named
 * {@link #value()} (the bean's name if blank). Put it on the class or on the {@code @Bean} method.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface HeraldHandler {
  /** The handler's name; blank means the bean's name. */
  String value() default "";

  /**
   * The definition this handler delivers, declared here: its settings are the attributes below, and
   * {@code herald.definitions.<name>.*} properties override them one by one. Blank: the handler only
   * delivers definitions declared elsewhere.
   */
  String definition() default "";

  /** The definition's retry schedule, as in {@code herald.definitions.<name>.retry}, e.g. {@code "5s, 5m, 1h"}. */
  String retry() default "";

  /** Attempts before the notice goes DEAD; -1 for unlimited. Unset: the core's default (10). */
  int maxAttempts() default UNSET;

  /** Cap on any wait between attempts, e.g. {@code "6h"}. */
  String maxInterval() default "";

  /** When failures raise alerts: final-failure, every-failure, never or after:N. */
  String alert() default "";

  /** Whether a delivery counts only once the receiver confirms it. */
  boolean confirmRequired() default false;

  /** How long to wait for a confirmation before delivering again, e.g. {@code "10m"}. */
  String confirmTimeout() default "";

  /** What this kind of notice is for. */
  String description() default "";

  /** {@link #maxAttempts()} when not given. */
  int UNSET = Integer.MIN_VALUE;
}
