package dev.herald.spring.docs;

import dev.herald.DeliveryResult;
import dev.herald.NoticeContext;
import dev.herald.NoticeHandler;
import dev.herald.spring.HeraldHandler;
import org.springframework.stereotype.Component;

// tag::ledger[]
@Component
@HeraldHandler(value = "ledger", definition = "ledger-entry", maxAttempts = -1) // -1: retried until taken
public class LedgerHandler implements NoticeHandler {
  @Override
  public DeliveryResult handle(NoticeContext ctx) {
    return ctx.payload().contains("\"amount\"") ? DeliveryResult.delivered() : DeliveryResult.fail("no amount");
  }
}
// end::ledger[]
