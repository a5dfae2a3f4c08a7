package dev.herald.channel.mail;

import dev.herald.DeliveryResult;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.json.JsonTree;
import dev.herald.spi.Channel;
import dev.herald.spi.ChannelBuilder;
import dev.herald.spi.Delivery;
import dev.herald.spi.PeerStatus;
import dev.herald.health.PeerHealth;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.time.Duration;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Delivers notices as e-mails over SMTP. The definition's target is the {@code To} list
 * (comma-separated; a notice's own target replaces it), its options the rest: {@code subject}
 * (required), {@code text} and/or {@code html} bodies, {@code cc}, {@code from}. Subject and bodies
 * may hold placeholders filled from the JSON payload, such as {@code {{order.id}}} (escaped in
 * HTML).
 *
 * <pre>{@code
 * MailChannel mail = MailChannel.builder()
 *     .host("smtp.example.com").port(587)
 *     .startTls(StartTls.REQUIRED)
 *     .credentials("herald", System.getenv("SMTP_PASSWORD"))
 *     .from("Shop <noreply@shop.example>")
 *     .build();
 * Herald herald = Herald.builder()
 *     .channel(mail)
 *     .define(NoticeDefinition.builder("order-shipped")
 *         .channel("mail", "orders@shop.example")
 *         .option("subject", "Order {{order.id}} shipped")
 *         .option("text", "Order {{order.id}} left the warehouse.\nTracking: {{tracking}}")
 *         .build())
 *     .build().start();
 * }</pre>
 *
 * <p>A 5xx reply fails the notice for good; a 4xx reply or a connection error retries it. The
 * {@code Message-ID} is derived from the notice id, the same on every attempt, so a mail system can
 * drop a repeat. At most {@link Builder#maxConnections(int)} sends run at once; more are deferred
 * without counting an attempt, so a slow mail server never holds the engine's delivery slots.
 */
public final class MailChannel implements Channel {
  /** The default channel name, used by definitions as {@code .channel("mail", "to@example.com")}. */
  public static final String NAME = "mail";

  private final String name;
  private final String host;
  private final int port;
  private final String username;
  private final String password;
  private final InternetAddress from;
  private final Duration busyDelay;
  private final Session session;
  private final String protocol;
  private final Semaphore connections;
  private final ExecutorService executor =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-mail-", 0).factory());
  private final PeerHealth health;
  private final String peer;
  private final AtomicBoolean probing = new AtomicBoolean();
  private final ScheduledExecutorService prober;
  private volatile boolean closed;

  private MailChannel(Builder b) {
    this.name = b.name();
    this.host = b.host;
    this.port = b.port;
    this.username = b.username;
    this.password = b.password;
    this.from = b.from == null ? null : MailOptions.address(b.from, "from");
    this.busyDelay = b.busyDelay();
    this.connections = new Semaphore(b.maxConnections);
    Properties p = new Properties();
    String proto = b.implicitTls ? "smtps" : "smtp";
    p.put("mail.transport.protocol", proto);
    p.put("mail." + proto + ".host", host);
    p.put("mail." + proto + ".port", Integer.toString(port));
    p.put("mail." + proto + ".connectiontimeout", Long.toString(b.connectTimeout.toMillis()));
    p.put("mail." + proto + ".timeout", Long.toString(b.timeout.toMillis()));
    p.put("mail." + proto + ".writetimeout", Long.toString(b.timeout.toMillis()));
    p.put("mail." + proto + ".auth", Boolean.toString(username != null));
    p.put("mail." + proto + ".starttls.enable", Boolean.toString(b.startTls != StartTls.DISABLED));
    p.put("mail." + proto + ".starttls.required", Boolean.toString(b.startTls == StartTls.REQUIRED));
    p.put("mail." + proto + ".ssl.checkserveridentity", "true");
    if (b.trustedHosts != null) {
      p.put("mail." + proto + ".ssl.trust", b.trustedHosts);
    }
    b.properties.forEach(p::put);
    this.session = Session.getInstance(p);
    this.protocol = proto;
    this.peer = host + ":" + port;
    this.health = new PeerHealth(b.name(), PeerStatus.Kind.MAIL_SERVER, b.clock(), 1, b.healthLogEvery());
    health.register(peer, proto + "://" + peer);
    this.prober = Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("herald-mail-probe-" + b.name()).factory());
    prober.scheduleWithFixedDelay(this::probeIfNotUp, 0, b.healthProbeInterval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The mail server: UP, DOWN (since when, failed sends, the last error) or UNKNOWN before the first contact. */
  @Override
  public List<PeerStatus> peers() {
    return health.all();
  }

  /** While the server is not known to answer, connects and says hello, so its state is known without traffic. */
  private void probeIfNotUp() {
    if (closed || health.status(peer).state() == PeerStatus.State.UP || !probing.compareAndSet(false, true)) {
      return;
    }
    try {
      executor.execute(() -> {
        try (Transport t = session.getTransport(protocol)) {
          t.connect(host, port, username, password);
          health.succeeded(peer);
        } catch (MessagingException e) {
          if (SmtpOutcome.serverAnswered(e)) {
            health.succeeded(peer); // it answered, if only to refuse the credentials: a send says more
          } else {
            health.unreachable(peer, SmtpOutcome.of(e, peer).detail());
          }
        } finally {
          probing.set(false);
        }
      });
    } catch (RuntimeException e) { // closing
      probing.set(false);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return name;
  }

  /** Checks that {@code target} is a list of e-mail addresses. */
  @Override
  public void validateTarget(String target) {
    if (target == null || target.isBlank()) {
      throw new InvalidInputException("target", "must list the recipients (To), e.g. orders@shop.example");
    }
    MailOptions.addresses(target, "target");
  }

  /** Options {@code subject}, {@code text}, {@code html}, {@code cc}, {@code from}; the engine refuses others at save. */
  @Override
  public java.util.List<dev.herald.spi.DefinitionOption> options() {
    return MailOptions.DECLARED;
  }

  /**
   * Checks a whole definition: recipients, {@code subject}, a body, {@code cc}, {@code from} (or
   * the channel's) and the placeholders' syntax.
   *
   * @throws InvalidInputException naming {@code target} or {@code options.<key>}
   */
  @Override
  public void validate(NoticeDefinition definition) {
    validateTarget(definition.target());
    MailOptions o = MailOptions.of(definition);
    if (o.from() == null && from == null) {
      throw new InvalidInputException("options." + MailOptions.FROM,
          "is required: the mail channel '" + name + "' has no default sender");
    }
  }

  @Override
  public CompletionStage<DeliveryResult> deliver(Delivery d) {
    if (closed) {
      return CompletableFuture.completedFuture(DeliveryResult.retry("mail channel '" + name + "' is closed"));
    }
    MimeMessage message;
    try {
      message = compose(d);
    } catch (InvalidInputException e) {
      return CompletableFuture.completedFuture(DeliveryResult.fail(e.getMessage() + "\n(no mail sent)"));
    } catch (Template.MissingValue e) {
      return CompletableFuture.completedFuture(DeliveryResult.fail(e.getMessage() + "\n(no mail sent)"));
    } catch (MessagingException e) {
      return CompletableFuture.completedFuture(DeliveryResult.fail("cannot compose the mail: " + e.getMessage()));
    }
    if (!connections.tryAcquire()) {
      return CompletableFuture.completedFuture(DeliveryResult.defer(busyDelay,
          "mail server " + host + ":" + port + " has its limit of sends in flight; deferred, not queued"));
    }
    try {
      return CompletableFuture.supplyAsync(() -> send(message), executor)
          .whenComplete((r, t) -> connections.release());
    } catch (RuntimeException e) { // executor shut down
      connections.release();
      return CompletableFuture.completedFuture(DeliveryResult.retry("mail channel '" + name + "' is closed"));
    }
  }

  private MimeMessage compose(Delivery d) throws MessagingException {
    MailOptions o;
    try {
      o = MailOptions.of(d.definition());
    } catch (InvalidInputException e) {
      throw new InvalidInputException(e.field(), e.reason() + " (definition '" + d.definition().name() + "')");
    }
    InternetAddress[] to = MailOptions.addresses(d.target(), "target");
    Object payload = JsonTree.parse(d.notice().payload(), "payload");
    String noticeId = d.notice().id().toString();
    MimeMessage m = new MimeMessage(session) {
      @Override
      protected void updateMessageID() throws MessagingException {
        setHeader("Message-ID", "<" + noticeId + "@herald>");
      }
    };
    InternetAddress sender = o.from() != null ? o.from() : from;
    if (sender == null) {
      throw new InvalidInputException("options.from", "is required: the mail channel has no default sender");
    }
    m.setFrom(sender);
    m.setRecipients(Message.RecipientType.TO, to);
    if (o.cc().length > 0) {
      m.setRecipients(Message.RecipientType.CC, o.cc());
    }
    m.setSubject(o.subject().render(payload, false).replaceAll("\\R", " "), "UTF-8");
    m.setSentDate(new Date());
    m.setHeader("X-Herald-Notice", noticeId);
    m.setHeader("X-Herald-Definition", d.definition().name());
    m.setHeader("X-Herald-Attempt", Integer.toString(d.attempt()));
    if (d.traceparent() != null) {
      m.setHeader("traceparent", d.traceparent());
    }
    String text = o.text() == null ? null : o.text().render(payload, false);
    String html = o.html() == null ? null : o.html().render(payload, true);
    if (html == null) {
      m.setText(text, "UTF-8");
    } else if (text == null) {
      m.setText(html, "UTF-8", "html");
    } else {
      MimeMultipart alternative = new MimeMultipart("alternative");
      MimeBodyPart plain = new MimeBodyPart();
      plain.setText(text, "UTF-8");
      MimeBodyPart rich = new MimeBodyPart();
      rich.setText(html, "UTF-8", "html");
      alternative.addBodyPart(plain);
      alternative.addBodyPart(rich);
      m.setContent(alternative);
    }
    m.saveChanges();
    return m;
  }

  private DeliveryResult send(MimeMessage m) {
    String server = host + ":" + port;
    try (Transport t = session.getTransport(protocol)) {
      t.connect(host, port, username, password);
      t.sendMessage(m, m.getAllRecipients());
      health.succeeded(peer);
      return DeliveryResult.delivered("SMTP " + server + " accepted " + m.getAllRecipients().length + " recipient(s)");
    } catch (MessagingException e) {
      DeliveryResult r = SmtpOutcome.of(e, server);
      if (SmtpOutcome.serverAnswered(e)) {
        health.succeeded(peer);
      } else {
        health.failed(peer, r.detail());
      }
      return r;
    }
  }

  /** Sends still running finish; new attempts are answered with {@code RETRY}. */
  @Override
  public void close() {
    closed = true;
    prober.shutdownNow();
    executor.shutdown();
  }

  /** Settings of a {@link MailChannel}; only {@link #host(String)} is required. */
  public static final class Builder extends ChannelBuilder<Builder> {
    private String host;
    private int port = 25;
    private String username;
    private String password;
    private StartTls startTls = StartTls.OPTIONAL;
    private boolean implicitTls;
    private String trustedHosts;
    private String from;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration timeout = Duration.ofSeconds(30);
    private int maxConnections = 4;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private Duration healthProbeInterval = Duration.ofSeconds(30);

    private Builder() {
      super(NAME);
    }

    /**
     * How often a mail server not known to answer is tried (connect and hello), so that its state is
     * known without traffic; 30s by default.
     */
    public Builder healthProbeInterval(Duration interval) {
      this.healthProbeInterval = interval;
      return this;
    }

    /** The SMTP server (required). */
    public Builder host(String host) {
      this.host = host;
      return this;
    }

    /** 25 by default; usually 587 with STARTTLS, 465 with {@link #implicitTls(boolean)}. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** Authenticates with {@code AUTH} (PLAIN or LOGIN, as the server offers). */
    public Builder credentials(String username, String password) {
      this.username = username;
      this.password = password;
      return this;
    }

    /** {@link StartTls#OPTIONAL} by default. */
    public Builder startTls(StartTls mode) {
      this.startTls = mode;
      return this;
    }

    /** TLS from the first byte ({@code smtps}, port 465) instead of STARTTLS. */
    public Builder implicitTls(boolean on) {
      this.implicitTls = on;
      return this;
    }

    /**
     * Hosts whose certificate is trusted without a chain to a trusted root, space-separated, or
     * {@code *} (only for tests and private relays). The server's identity is always checked.
     */
    public Builder trustHosts(String hosts) {
      this.trustedHosts = hosts;
      return this;
    }

    /** The default sender; a definition's {@code from} option overrides it. */
    public Builder from(String address) {
      this.from = address;
      return this;
    }

    /** 10s by default. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    /** The longest wait for any one reply of the server; 30s by default. */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** Most sends in flight at once (one connection each); 4 by default. */
    public Builder maxConnections(int max) {
      this.maxConnections = max;
      return this;
    }

    /** Any other Jakarta Mail session property, e.g. {@code mail.smtp.localhost}. */
    public Builder property(String key, String value) {
      this.properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** @throws InvalidInputException naming the bad setting */
    public MailChannel build() {
      checkName();
      if (host == null || host.isBlank()) {
        throw new InvalidInputException("host", "is required: the SMTP server to send through");
      }
      if (port < 1 || port > 65535) {
        throw new InvalidInputException("port", "must be from 1 to 65535, was " + port);
      }
      if ((username == null) != (password == null)) {
        throw new InvalidInputException("credentials", "need both a user name and a password");
      }
      Objects.requireNonNull(startTls, "startTls");
      positive(connectTimeout, "connectTimeout");
      positive(timeout, "timeout");
      positive(busyDelay(), "busyDelay");
      positive(healthProbeInterval, "healthProbeInterval");
      positive(healthLogEvery(), "healthLogEvery");
      if (maxConnections < 1) {
        throw new InvalidInputException("maxConnections", "must be at least 1, was " + maxConnections);
      }
      return new MailChannel(this);
    }
  }
}
