package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.herald.Attempt;
import dev.herald.Herald;
import dev.herald.NoticeDetail;
import dev.herald.NoticeStatus;
import dev.herald.spring.test.AutoConfigureHerald;
import dev.herald.testing.ManualRunner;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

/** Failures show in the log without a listener; a handler's stack trace is kept in the attempt log. */
@SpringBootTest(classes = FailureLoggingTest.App.class, properties = {
    "herald.definitions.fragile.handler=inbox", "herald.definitions.fragile.retry=1s",
    "herald.definitions.fragile.max-attempts=2",
    "herald.publisher.require-transaction=false"}) // publishes notices that stand alone
@AutoConfigureHerald
class FailureLoggingTest {
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Inbox inbox() {
      return new Inbox();
    }
  }

  @Autowired Herald herald;
  @Autowired NoticePublisher notices;
  @Autowired ManualRunner runner;
  @Autowired Inbox inbox;

  private final Logger logger = (Logger) LoggerFactory.getLogger("dev.herald.delivery");
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private Level level;

  @BeforeEach
  void capture() {
    level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    appender.start();
    logger.addAppender(appender);
  }

  @AfterEach
  void release() {
    logger.detachAppender(appender);
    logger.setLevel(level);
  }

  @Test
  void aDeadNoticeIsAWarnLineAndEachFailedAttemptADebugLineWithTheHandlersStackTrace() {
    inbox.down = true;
    NoticeHandle handle = notices.publish("fragile", "{\"order\":7}");
    runner.runDue();
    runner.advanceAndRun(Duration.ofSeconds(1));
    assertThat(handle.current().status()).isEqualTo(NoticeStatus.DEAD);

    List<ILoggingEvent> warn = appender.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
    assertThat(warn).singleElement().extracting(ILoggingEvent::getFormattedMessage).isEqualTo("Herald notice "
        + handle.id() + " of 'fragile' is DEAD after 2 attempt(s); last error: java.lang.IllegalStateException: receiver down");
    List<ILoggingEvent> debug = appender.list.stream().filter(e -> e.getLevel() == Level.DEBUG).toList();
    assertThat(debug).hasSize(2).allSatisfy(e -> assertThat(e.getFormattedMessage())
        .startsWith("Herald notice " + handle.id() + " of 'fragile': attempt ")
        .contains("java.lang.IllegalStateException: receiver down", "at dev.herald.spring.Inbox.take("));

    NoticeDetail detail = herald.operations().find(handle.id()).orElseThrow();
    assertThat(detail.attempts()).hasSize(2).allSatisfy(a -> assertThat(a.detail())
        .startsWith("java.lang.IllegalStateException: receiver down")
        .contains("\tat dev.herald.spring.Inbox.take(Inbox.java:")
        .hasSizeLessThanOrEqualTo(Attempt.MAX_DETAIL));
    assertThat(detail.attempts().getLast().detail()).as("the last one says no retry follows")
        .startsWith("java.lang.IllegalStateException: receiver down (attempt 2 of 2: no retry left, DEAD)\n");
  }

  @Test
  void aDeliveredNoticeLogsNothing() {
    inbox.down = false;
    notices.publish("fragile", "{\"order\":8}");
    runner.runDue();
    assertThat(appender.list).isEmpty();
  }
}
