package dev.herald.spring.docs;

import dev.herald.spring.NoticePublisher;
import dev.herald.spring.SyncOutcome;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/** Document 003's sync-first sending, as the README shows it. */
@Service
public class SmsService {
  private static final Logger log = LoggerFactory.getLogger(SmsService.class);
  private final NoticePublisher notices;

  public SmsService(NoticePublisher notices) {
    this.notices = notices;
  }

  public boolean send(String phone, String text) {
    // tag::sync-first[]
    SyncOutcome out = notices.publishAndDeliver("sms", new Sms(phone, text), Duration.ofSeconds(2));
    if (out.delivered()) {
      log.info("sent at once");
    } else {
      log.info("sent later: {}", out.reason());
    }
    // end::sync-first[]
    return out.delivered();
  }
}
