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
 * <p>The definition can live here too, with {@code herald.definitions.order-paid.*} properties
 * overriding what the annotation says:
 *
 * <pre>{@code
 * @NoticeHandlerMethod(value = "marketing-platform", definition = "order-paid", retry = "5s, 5m, 1h",
 *     maxAttempts = 10, alert = "after:3")
 * public void send(OrderPaid event) { ... }
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
