package dev.herald.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Herald's settings under {@code herald.*}. Every engine setting of {@link dev.herald.Herald.Builder}
 * has a property; a property left unset keeps the core's default (named in each description), so
 * the core stays the one source of defaults. Durations take Spring's forms: {@code 500ms}, {@code
 * 5s}, {@code 10m}, {@code PT5S}.
 *
 * <pre>
 * herald:
 *   poll-interval: 1s
 *   definitions:
 *     order-paid:
 *       handler: notify-merchant
 *       retry: 5s, 5m, 1h
 *       max-attempts: 10
 * </pre>
 */
@ConfigurationProperties("herald")
public class HeraldProperties extends EngineProperties {

  /** Whether to configure Herald at all. */
  private boolean enabled = true;

  /**
   * Whether the engine starts with the application context. Off in tests that drive it with a
   * ManualRunner (see {@code @AutoConfigureHerald}); publishing works either way.
   */
  private boolean autoStart = true;

  /**
   * Whether start-up fails on a key under herald.* that Herald does not know (a typo such as
   * herald.pol-interval), naming the closest known key. Keys under another configuration-properties
   * prefix (herald.server.*) are left to their owner; environment variables are not checked.
   */
  private boolean failOnUnknownProperties = true;

  /**
   * Embedded H2 database files (path without extension), used only when the application has no
   * DataSource bean. Default: data/herald.
   */
  private Path h2File;

  /**
   * Whether start-up fails when a definition declared here or as a NoticeDefinition bean targets a
   * local handler that no bean provides. Turn off only if handlers are registered through a
   * HeraldCustomizer.
   */
  private boolean verifyHandlers = true;

  /**
   * Definitions saved at start-up, by name. Each entry takes handler (or channel and target), retry,
   * max-attempts, max-interval, alert, confirm-required, confirm-timeout and description. A name with
   * dots needs brackets in properties files: herald.definitions[order.paid].handler.
   */
  private Map<String, Definition> definitions = new LinkedHashMap<>();

  /** The herald health component's thresholds (management.health.herald.enabled turns it off). */
  private Health health = new Health();

  /** How the NoticePublisher treats a notice published outside a transaction. */
  private Publisher publisher = new Publisher();

  /** The NoticePublisher's rules. */
  public static class Publisher {
    /**
     * Whether publishing with no Spring transaction active is refused (NoTransactionException): such a
     * notice would commit on its own, delivered even when the business work rolls back (a forgotten
     * or self-invoked @Transactional, another thread). false stores it in a transaction of its own.
     * publishAndDeliver is always allowed outside a transaction, and so is publishing when Herald runs
     * on its own H2 files (the application has no DataSource, so no transaction to join).
     */
    private boolean requireTransaction = true;

    public boolean isRequireTransaction() {
      return requireTransaction;
    }

    public void setRequireTransaction(boolean requireTransaction) {
      this.requireTransaction = requireTransaction;
    }
  }

  /**
   * When the herald health component stops saying UP. With none set it reports the figures (backlog,
   * oldest due notice's age, DEAD notices) but stays UP while the engine runs and its database answers.
   */
  public static class Health {
    /**
     * Most notices in the backlog (live notices whose fire time has passed: waiting for an attempt, a
     * retry or a confirmation) before the status changes. Default: no limit.
     */
    private Integer maxBacklog;

    /** Largest backlog age (since the oldest notice of the backlog was due) before the status changes. Default: no limit. */
    private Duration maxOldestDueAge;

    /** Most notices gone DEAD within dead-window before the status changes. Default: no limit. */
    private Integer maxDead;

    /** How far back DEAD notices are counted. Default: 24h. */
    private Duration deadWindow = Duration.ofHours(24);

    /**
     * The status past a threshold: OUT_OF_SERVICE, DOWN, or a custom one (order it with
     * management.endpoint.health.status.order). Default: OUT_OF_SERVICE.
     */
    private String status = "OUT_OF_SERVICE";

    /**
     * How long a channel's broker or mail server may be down before the channel's health component
     * (heraldChannels/&lt;channel&gt;) leaves UP. Default: 30s.
     */
    private Duration channelDownAfter = Duration.ofSeconds(30);

    /** The status of a channel's health component past channel-down-after. Default: DOWN. */
    private String channelStatus = "DOWN";

    public Duration getChannelDownAfter() {
      return channelDownAfter;
    }

    public void setChannelDownAfter(Duration channelDownAfter) {
      this.channelDownAfter = channelDownAfter;
    }

    public String getChannelStatus() {
      return channelStatus;
    }

    public void setChannelStatus(String channelStatus) {
      this.channelStatus = channelStatus;
    }

    public Integer getMaxBacklog() {
      return maxBacklog;
    }

    public void setMaxBacklog(Integer maxBacklog) {
      this.maxBacklog = maxBacklog;
    }

    public Duration getMaxOldestDueAge() {
      return maxOldestDueAge;
    }

    public void setMaxOldestDueAge(Duration maxOldestDueAge) {
      this.maxOldestDueAge = maxOldestDueAge;
    }

    public Integer getMaxDead() {
      return maxDead;
    }

    public void setMaxDead(Integer maxDead) {
      this.maxDead = maxDead;
    }

    public Duration getDeadWindow() {
      return deadWindow;
    }

    public void setDeadWindow(Duration deadWindow) {
      this.deadWindow = deadWindow;
    }

    public String getStatus() {
      return status;
    }

    public void setStatus(String status) {
      this.status = status;
    }
  }

  /** One definition: where its notices go and how they are retried, alerted and confirmed. */
  public static class Definition {
    /** The in-process handler (a bean) that delivers it; short for channel=local, target=handler. */
    private String handler;

    /**
     * The channel that delivers it, e.g. local or http; give target too, or leave it out where each
     * notice gives its own (http). Default: local.
     */
    private String channel;

    /** Where the channel sends it: for local, the handler's name; for http, the URL. */
    private String target;

    /**
     * Retry schedule: a fixed delay (5m), a list (5s, 5m, 1h, 1d), per attempt (1:0s, 2:1m) or
     * exponential(base=1s, factor=2, cap=1h, jitter=0.2). Default: 10s, 1m, 5m, 30m, 1h.
     */
    private String retry;

    /** Attempts before the notice goes DEAD; -1 for unlimited. Default: 10. */
    private Integer maxAttempts;

    /** Cap on any wait between attempts. Default: none. */
    private Duration maxInterval;

    /** When failures raise alerts: final-failure, every-failure, never or after:N. Default: final-failure. */
    private String alert;

    /** Whether a delivery counts only once the receiver confirms it. Default: false. */
    private Boolean confirmRequired;

    /** How long to wait for a confirmation before delivering again. Default: 10m. */
    private Duration confirmTimeout;

    /** What this kind of notice is for. */
    private String description;

    /**
     * Ordered delivery per ordering key: none, wait (a DEAD head holds its key) or skip. Default:
     * none.
     */
    private String ordering;

    public String getOrdering() {
      return ordering;
    }

    public void setOrdering(String ordering) {
      this.ordering = ordering;
    }

    /** Channel settings, e.g. timeout or expected-body for http. */
    private Map<String, String> options = new LinkedHashMap<>();

    public Map<String, String> getOptions() {
      return options;
    }

    public void setOptions(Map<String, String> options) {
      this.options = options;
    }

    public String getHandler() {
      return handler;
    }

    public void setHandler(String handler) {
      this.handler = handler;
    }

    public String getChannel() {
      return channel;
    }

    public void setChannel(String channel) {
      this.channel = channel;
    }

    public String getTarget() {
      return target;
    }

    public void setTarget(String target) {
      this.target = target;
    }

    public String getRetry() {
      return retry;
    }

    public void setRetry(String retry) {
      this.retry = retry;
    }

    public Integer getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(Integer maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Duration getMaxInterval() {
      return maxInterval;
    }

    public void setMaxInterval(Duration maxInterval) {
      this.maxInterval = maxInterval;
    }

    public String getAlert() {
      return alert;
    }

    public void setAlert(String alert) {
      this.alert = alert;
    }

    public Boolean getConfirmRequired() {
      return confirmRequired;
    }

    public void setConfirmRequired(Boolean confirmRequired) {
      this.confirmRequired = confirmRequired;
    }

    public Duration getConfirmTimeout() {
      return confirmTimeout;
    }

    public void setConfirmTimeout(Duration confirmTimeout) {
      this.confirmTimeout = confirmTimeout;
    }

    public String getDescription() {
      return description;
    }

    public void setDescription(String description) {
      this.description = description;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isAutoStart() {
    return autoStart;
  }

  public void setAutoStart(boolean autoStart) {
    this.autoStart = autoStart;
  }

  public boolean isFailOnUnknownProperties() {
    return failOnUnknownProperties;
  }

  public void setFailOnUnknownProperties(boolean failOnUnknownProperties) {
    this.failOnUnknownProperties = failOnUnknownProperties;
  }

  public Publisher getPublisher() {
    return publisher;
  }

  public void setPublisher(Publisher publisher) {
    this.publisher = publisher;
  }

  public Health getHealth() {
    return health;
  }

  public void setHealth(Health health) {
    this.health = health;
  }

  public Path getH2File() {
    return h2File;
  }

  public void setH2File(Path h2File) {
    this.h2File = h2File;
  }

  public boolean isVerifyHandlers() {
    return verifyHandlers;
  }

  public void setVerifyHandlers(boolean verifyHandlers) {
    this.verifyHandlers = verifyHandlers;
  }

  public Map<String, Definition> getDefinitions() {
    return definitions;
  }

  public void setDefinitions(Map<String, Definition> definitions) {
    this.definitions = definitions;
  }
}
