package dev.herald.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Lets a Spring test drive Herald deterministically, in the spirit of Spring Boot's test slices: the
 * engine is built but not started ({@code herald.auto-start=false}), runs on a {@link
 * dev.herald.testing.SettableClock} bean and is driven by a {@link dev.herald.testing.ManualRunner}
 * bean. Publishing and handlers work as in the application; nothing is delivered until the test
 * calls {@code runDue()} or {@code advanceAndRun(...)}.
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureHerald
 * class OrderServiceTest {
 *   @Autowired OrderService orders;
 *   @Autowired ManualRunner herald;
 *
 *   @Test
 *   void tellsTheMarketingPlatform() {
 *     orders.pay(42, new BigDecimal("9.90"));
 *     herald.runDue();
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>The test context, and so the clock and the database, are shared by the tests that Spring's
 * context cache gives the same context to: assert on your own notices, not on totals.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(HeraldTestAutoConfiguration.class)
@PropertyMapping("herald")
public @interface AutoConfigureHerald {
  /** Whether the engine starts anyway (mapped to {@code herald.auto-start}); off, so that the test drives it. */
  boolean autoStart() default false;
}
