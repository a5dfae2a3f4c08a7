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
}
