package dev.herald.channel.mail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Notice;
import dev.herald.NoticeDefinition;
import dev.herald.NoticeDetail;
import dev.herald.NoticeRequest;
import dev.herald.NoticeStatus;
import dev.herald.testing.ManualRunner;
import dev.herald.testing.SettableClock;
import jakarta.mail.Message;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every outcome of the mail channel, against GreenMail (and a scripted server for refusals). */
class MailChannelTest {
  static GreenMail greenMail;

  @TempDir Path dir;
  final List<Herald> started = new ArrayList<>();

  @BeforeAll
  static void startGreenMail() {
    greenMail = new GreenMail(ServerSetupTest.SMTP.dynamicPort());
    greenMail.start();
    greenMail.setUser("herald@shop.example", "herald", "s3cret");
  }

  @AfterAll
  static void stopGreenMail() {
    greenMail.stop();
  }

  @BeforeEach
  void purge() throws Exception {
    greenMail.purgeEmailFromAllMailboxes();
  }

  @AfterEach
  void close() {
    started.forEach(Herald::close);
  }

  /** The definition the README shows, without the options named in {@code leaveOut}. */
  static NoticeDefinition.Builder orderShipped(String... leaveOut) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("cc", "Sales <sales@shop.example>");
    options.put("subject", "Order {{order.id}} shipped");
    options.put("text", "Hello {{name}},\\nyour order {{order.id}} left the warehouse.");
    options.put("html", "<p>Hello {{name}}, your order <b>{{order.id}}</b> left the warehouse.</p>");
    List.of(leaveOut).forEach(options::remove);
    NoticeDefinition.Builder b = NoticeDefinition.builder("order-shipped").channel("mail", "buyer@shop.example").retry("1m");
    options.forEach(b::option);
    return b;
  }

  ManualRunner herald(MailChannel mail, NoticeDefinition definition) {
    SettableClock clock = SettableClock.startingNow();
    Herald h = Herald.builder().h2File(dir.resolve("h" + started.size())).clock(clock)
        .channel(mail).define(definition).build();
    started.add(h);
    return new ManualRunner(h, clock);
  }

  static MailChannel.Builder greenMailChannel() {
    return MailChannel.builder().host("127.0.0.1").port(greenMail.getSmtp().getPort()).from("Shop <noreply@shop.example>");
  }

  NoticeDetail sendOne(MailChannel.Builder channel, UnaryOperator<NoticeDefinition.Builder> definition, String payload) {
    ManualRunner runner = herald(channel.build(), definition.apply(orderShipped()).build());
    Herald h = started.getLast();
    Notice n = h.enqueue(NoticeRequest.of("order-shipped", payload).traceparent(TRACEPARENT));
    runner.runDue();
    return h.operations().find(n.id()).orElseThrow();
  }

  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void sendsToAndCcWithSubjectTextAndHtmlFilledFromThePayload() throws Exception {
    NoticeDetail d = sendOne(greenMailChannel(), b -> b, "{\"order\":{\"id\":42},\"name\":\"Ann <ann@x>\"}");

    assertThat(d.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);
    MimeMessage[] received = greenMail.getReceivedMessages();
    assertThat(received).hasSize(2); // one copy per recipient, To and Cc
    MimeMessage m = received[0];
    assertThat(m.getSubject()).isEqualTo("Order 42 shipped");
    assertThat(m.getFrom()[0].toString()).isEqualTo("Shop <noreply@shop.example>");
    assertThat(m.getRecipients(Message.RecipientType.TO)[0].toString()).isEqualTo("buyer@shop.example");
    assertThat(m.getRecipients(Message.RecipientType.CC)[0].toString()).isEqualTo("Sales <sales@shop.example>");
    assertThat(m.getMessageID()).isEqualTo("<" + d.notice().id() + "@herald>");
    assertThat(m.getHeader("X-Herald-Definition")).containsExactly("order-shipped");
    assertThat(m.getHeader("X-Herald-Attempt")).containsExactly("1");
    assertThat(m.getHeader("traceparent")).containsExactly(TRACEPARENT);
    MimeMultipart alt = (MimeMultipart) m.getContent();
    assertThat(alt.getContentType()).startsWith("multipart/alternative");
    assertThat(alt.getBodyPart(0).getContent().toString().replace("\r\n", "\n")).isEqualTo("Hello Ann <ann@x>,\nyour order 42 left the warehouse.");
    assertThat(alt.getBodyPart(1).getContent())
        .isEqualTo("<p>Hello Ann &lt;ann@x&gt;, your order <b>42</b> left the warehouse.</p>");
  }

  @Test
  void aNoticeTargetReplacesTheRecipientsAndTextAloneMakesAPlainMail() throws Exception {
    ManualRunner runner = herald(greenMailChannel().build(), orderShipped("html").build());
    Herald h = started.getLast();
    h.enqueue(NoticeRequest.of("order-shipped", "{\"order\":{\"id\":7},\"name\":\"Bo\"}").target("bo@buyer.example"));
    runner.runDue();

    MimeMessage m = greenMail.getReceivedMessagesForDomain("buyer.example")[0];
    assertThat(m.getContentType()).startsWith("text/plain");
    assertThat(GreenMailUtil.getBody(m)).contains("your order 7 left");
    assertThat(m.getRecipients(Message.RecipientType.TO)).extracting(Object::toString).containsExactly("bo@buyer.example");
    assertThat(greenMail.getReceivedMessages()).hasSize(2); // bo and the cc, not buyer@shop.example
  }

  @Test
  void authenticatesAndAWrongPasswordFailsForGood() {
    NoticeDetail ok = sendOne(greenMailChannel().credentials("herald", "s3cret"), b -> b, "{\"order\":{\"id\":1},\"name\":\"A\"}");
    assertThat(ok.notice().status()).isEqualTo(NoticeStatus.SUCCEEDED);

    NoticeDetail bad = sendOne(greenMailChannel().credentials("herald", "wrong"), b -> b, "{\"order\":{\"id\":2},\"name\":\"B\"}");
    assertThat(bad.notice().status()).isEqualTo(NoticeStatus.DEAD);
    assertThat(bad.notice().lastError()).contains("refused for good (535)");
  }

  @Test
  void aPermanentRefusal5xxFailsTheNoticeForGood() throws Exception {
    try (var smtp = new ScriptedSmtpServer("550 5.1.1 <buyer@shop.example>: mailbox unknown", "250 OK")) {
      NoticeDetail d = sendOne(MailChannel.builder().host("127.0.0.1").port(smtp.port()).from("noreply@shop.example"),
          b -> b, "{\"order\":{\"id\":3},\"name\":\"C\"}");
      assertThat(d.notice().status()).isEqualTo(NoticeStatus.DEAD);
      assertThat(d.notice().attempts()).isEqualTo(1);
      assertThat(d.notice().lastError()).contains("refused for good (550)").contains("mailbox unknown");
    }
  }

  @Test
  void aTemporaryRefusal4xxIsRetried() throws Exception {
    try (var smtp = new ScriptedSmtpServer("250 OK", "451 4.3.0 try again later")) {
      NoticeDetail d = sendOne(MailChannel.builder().host("127.0.0.1").port(smtp.port()).from("noreply@shop.example"),
          b -> b, "{\"order\":{\"id\":4},\"name\":\"D\"}");
      assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
      assertThat(d.notice().lastError()).contains("refused for now (451)").contains("try again later");
      assertThat(smtp.messagesAccepted).hasValue(0);
    }
  }

  @Test
  void aServerThatCannotBeReachedIsRetried() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    NoticeDetail d = sendOne(MailChannel.builder().host("127.0.0.1").port(closedPort).from("noreply@shop.example"),
        b -> b, "{\"order\":{\"id\":5},\"name\":\"E\"}");
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(d.notice().lastError()).contains("127.0.0.1:" + closedPort).contains("Connect");
  }

  /**
   * The mail server stopped: DOWN at the first failed send, with the error; a server refusing a
   * recipient is up (it answered); back, it is seen UP by the channel's probe without any mail to send.
   */
  @Test
  void aMailServerThatStopsIsReportedDownAndUpAgainByItsProbe() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    com.icegreen.greenmail.util.ServerSetup setup = new com.icegreen.greenmail.util.ServerSetup(port, "127.0.0.1", "smtp");
    GreenMail own = new GreenMail(setup);
    own.start();
    MailChannel mail = MailChannel.builder().host("127.0.0.1").port(port).from("noreply@shop.example")
        .healthProbeInterval(java.time.Duration.ofMillis(100)).build();
    try {
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
          .until(() -> mail.peers().getFirst().state() == dev.herald.spi.PeerStatus.State.UP);
      assertThat(mail.peers().getFirst().peer()).isEqualTo("127.0.0.1:" + port);
      assertThat(mail.peers().getFirst().kind()).isEqualTo(dev.herald.spi.PeerStatus.Kind.MAIL_SERVER);
      own.stop();
      ManualRunner runner = herald(mail, orderShipped().build());
      started.getLast().enqueue("order-shipped", "{\"order\":{\"id\":8},\"name\":\"H\"}");
      runner.runDue();
      dev.herald.spi.PeerStatus down = mail.peers().getFirst();
      assertThat(down.state()).isEqualTo(dev.herald.spi.PeerStatus.State.DOWN);
      assertThat(down.failures()).isEqualTo(1);
      assertThat(down.lastError()).contains("127.0.0.1:" + port);
      own = new GreenMail(setup);
      own.start();
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
          .until(() -> mail.peers().getFirst().state() == dev.herald.spi.PeerStatus.State.UP);
    } finally {
      own.stop();
    }
    try (var smtp = new ScriptedSmtpServer("550 5.1.1 <buyer@shop.example>: mailbox unknown", "250 OK")) {
      MailChannel refusing = MailChannel.builder().host("127.0.0.1").port(smtp.port()).from("noreply@shop.example").build();
      ManualRunner runner = herald(refusing, orderShipped().build());
      started.getLast().enqueue("order-shipped", "{\"order\":{\"id\":9},\"name\":\"I\"}");
      runner.runDue();
      assertThat(refusing.peers().getFirst().state()).as("it answered, if only to refuse")
          .isEqualTo(dev.herald.spi.PeerStatus.State.UP);
    }
  }

  @Test
  void requiredStartTlsSendsNothingToAServerWithoutIt() {
    NoticeDetail d = sendOne(greenMailChannel().startTls(StartTls.REQUIRED), b -> b, "{\"order\":{\"id\":6},\"name\":\"F\"}");
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.FAILED);
    assertThat(d.notice().lastError()).containsIgnoringCase("STARTTLS");
    assertThat(greenMail.getReceivedMessages()).isEmpty();
  }

  @Test
  void aPayloadWithoutAPlaceholdersValueFailsWithoutSending() {
    NoticeDetail d = sendOne(greenMailChannel(), b -> b, "{\"name\":\"G\"}");
    assertThat(d.notice().status()).isEqualTo(NoticeStatus.DEAD);
    assertThat(d.notice().lastError()).contains("payload value 'order.id' has no value");
    assertThat(greenMail.getReceivedMessages()).isEmpty();
  }

  @Test
  void aDefinitionIsRefusedNamingTheBadField() {
    MailChannel mail = greenMailChannel().build();
    assertThatThrownBy(() -> mail.validate(orderShipped("subject").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.subject"));
    assertThatThrownBy(() -> mail.validate(orderShipped("text", "html").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.text"));
    assertThatThrownBy(() -> mail.validate(orderShipped().option("cc", "not an address").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.cc"));
    assertThatThrownBy(() -> mail.validate(orderShipped().option("subject", "Order {{order id}}").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.subject"));
    assertThatThrownBy(() -> mail.validate(orderShipped().channel("mail", "buyer@").build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("target"));
    MailChannel noSender = MailChannel.builder().host("127.0.0.1").build();
    assertThatThrownBy(() -> noSender.validate(orderShipped().build()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("options.from"));
    assertThatThrownBy(() -> MailChannel.builder().build())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("host"));
  }
}
