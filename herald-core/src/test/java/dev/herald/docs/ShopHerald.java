package dev.herald.docs;

// tag::java-usage[]
import dev.herald.AlertEvent;
import dev.herald.AlertPolicy;
import dev.herald.DeliveryResult;
import dev.herald.Herald;
import dev.herald.HeraldListener;
import dev.herald.NoticeDefinition;
import dev.herald.channel.local.Handlers;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public final class ShopHerald {
  private static final Logger log = LoggerFactory.getLogger(ShopHerald.class);

  public static Herald start(DataSource dataSource, Merchants merchants, OrderService orderService) {
    return Herald.builder()
        .dataSource(dataSource)                 // your database, so notices join your transactions;
                                                // or .h2File(Path.of("data", "herald")), the default
        .define(NoticeDefinition.builder("order-paid")
            .handler("notify-merchant")
            .retry("5s, 5m, 1h, 1d")
            .maxAttempts(10)
            .alert(AlertPolicy.afterFailures(3))
            .build())
        .define(NoticeDefinition.builder("order-auto-close")
            .handler("close-order")
            .retry("exponential(base=1s, factor=2, cap=1h, jitter=0.2)")
            .unlimitedAttempts()
            .build())
        .handler("notify-merchant", ctx -> merchants.notify(ctx.payload())
            ? DeliveryResult.delivered()
            : DeliveryResult.retry("merchant did not answer success"))
        .handler("close-order", Handlers.method(orderService, "closeUnpaid")) // public void closeUnpaid(String payload)
        .listener(new HeraldListener() {
          @Override
          public void onAlert(AlertEvent alert) {
            log.warn("notice {} failed {} time(s): {}", alert.notice().id(), alert.failures(), alert.error());
          }
        })
        .build()      // validates settings, migrates the schema, saves the definitions
        .start();     // claims and delivers until herald.close()
  }
}
// end::java-usage[]

/** The merchant callback of the README's example. */
interface Merchants {
  boolean notify(String payload);
}
