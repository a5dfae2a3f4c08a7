package dev.herald.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a public method of a Spring bean the in-process handler named {@link #value()}; a definition
 * targets it with {@code herald.definitions.<name>.handler=<value>}.
 *
 * <p>Parameters, each optional, in any order: a {@link dev.herald.NoticeContext}, a {@link
 * dev.herald.Notice}, and at most one payload parameter: a {@code String} receives the JSON text as
 * enqueued, any other type receives the payload read with the application's Jackson {@code
 * JsonMapper}. The method returns {@code void} (delivered unless it throws), {@code boolean} ({@code
 * false} means retry) or a {@link dev.herald.DeliveryResult}. An exception is a failed attempt,
 * retried on the definition's schedule; it never reaches the code that published the notice.
 *
 * <pre>{@code
 * @Component
 * class MarketingSync {
 *   @NoticeHandlerMethod("marketing-platform")
 *   void send(OrderPaid event, NoticeContext ctx) { ... }
 * }
 * }</pre>
 *
 * <p>A wrong signature, a blank name, two handlers of one name, or a name that no definition
 * targets fail the application's start-up with a message naming the bean and method.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface NoticeHandlerMethod {
  /** The handler's name. */
  String value();
}
