package dev.herald.server;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The server's settings under {@code herald.server.*}. The engine's settings stay under {@code
 * herald.*} (the starter's), the webhook channel's under {@code herald.http.*}.
 */
@ConfigurationProperties("herald.server")
public class ServerProperties {

  /**
   * Folder of the embedded H2 database (file herald-server.mv.db), used when spring.datasource.url
   * is not set.
   */
  private Path dataDir = Path.of("data");

  /** Most items in one batch request (create, edit, cancel, lookup). */
  private int maxBatch = 1000;

  /** Largest request body accepted; larger ones get 413. */
  private DataSize maxRequestSize = DataSize.ofMegabytes(16);

  /**
   * Most bytes of request bodies all requests together read at once on this server; a request that
   * would pass it gets 503 with Retry-After. Bounds the heap request bodies take under load.
   */
  private DataSize maxRequestBytesInFlight = DataSize.ofMegabytes(64);

  /** Most time a request body may take to arrive; a slower one gets 408. */
  private Duration bodyTimeout = Duration.ofSeconds(30);

  /**
   * Most time a connection may take to send a request's line and headers; a slower one is closed
   * (slowloris). Tomcat's connection timeout bounds each read, this the whole header.
   */
  private Duration headerTimeout = Duration.ofSeconds(10);

  /**
   * Where receivers reach this server's API, e.g. https://herald.example (used in the confirm URL sent
   * to receivers of notices that wait for confirmation); without it the URL is a path.
   */
  private String publicUrl;

  /** The key that seals secrets at rest (32 random bytes, base64; HERALD_SERVER_SECRET_KEY). */
  private String secretKey;

  /** Keys secrets may still be sealed under, while they are sealed again under secret-key. */
  private java.util.List<String> previousSecretKeys = new java.util.ArrayList<>();

  public DataSize getMaxRequestBytesInFlight() {
    return maxRequestBytesInFlight;
  }

  public void setMaxRequestBytesInFlight(DataSize maxRequestBytesInFlight) {
    this.maxRequestBytesInFlight = maxRequestBytesInFlight;
  }

  public Duration getBodyTimeout() {
    return bodyTimeout;
  }

  public void setBodyTimeout(Duration bodyTimeout) {
    this.bodyTimeout = bodyTimeout;
  }

  public Duration getHeaderTimeout() {
    return headerTimeout;
  }

  public void setHeaderTimeout(Duration headerTimeout) {
    this.headerTimeout = headerTimeout;
  }

  public String getPublicUrl() {
    return publicUrl;
  }

  public void setPublicUrl(String publicUrl) {
    this.publicUrl = publicUrl;
  }

  public String getSecretKey() {
    return secretKey;
  }

  public void setSecretKey(String secretKey) {
    this.secretKey = secretKey;
  }

  public java.util.List<String> getPreviousSecretKeys() {
    return previousSecretKeys;
  }

  public void setPreviousSecretKeys(java.util.List<String> previousSecretKeys) {
    this.previousSecretKeys = previousSecretKeys;
  }

  /**
   * An admin token to accept from the first start on, for automated deployments (set it from a
   * secret store, e.g. HERALD_SERVER_BOOTSTRAP_ADMIN_TOKEN). Only its SHA-256 hash is stored. At
   * least 32 characters.
   */
  private String bootstrapAdminToken;

  /**
   * Whether a start that finds no API token at all (and no bootstrap-admin-token) creates an admin
   * token and prints it, once, in the log.
   */
  private boolean createInitialToken = true;

  /** Name of the built-in definition that notices given a callbackUrl but no definition use. */
  private String callbackDefinition = "callback";

  /** Retry schedule of the built-in callback definition when it is first created. */
  private String callbackRetry = "exponential(base=10s, factor=2, cap=1h)";

  /** Attempts of the built-in callback definition when it is first created; -1 for unlimited. */
  private int callbackMaxAttempts = 10;

  /** The Retry-After sent with 503 when Herald refuses new notices (back-pressure) or the database is down. */
  private Duration retryAfter = Duration.ofSeconds(5);

  /**
   * How far ahead a notice may be scheduled (fireAt, or now plus delay); later times are refused.
   * Default 10 years (3650d).
   */
  private Duration maxScheduleAhead = Duration.ofDays(3650);

  /**
   * Demo mode: demo definitions delivering to a receiver inside this server ({@code /demo/receiver}),
   * fed a stream of notices for a few minutes, so the console shows real data. Never in production.
   */
  private boolean demo;

  public boolean isDemo() {
    return demo;
  }

  public void setDemo(boolean demo) {
    this.demo = demo;
  }

  public Duration getMaxScheduleAhead() {
    return maxScheduleAhead;
  }

  public void setMaxScheduleAhead(Duration maxScheduleAhead) {
    this.maxScheduleAhead = maxScheduleAhead;
  }

  public Path getDataDir() {
    return dataDir;
  }

  public void setDataDir(Path dataDir) {
    this.dataDir = dataDir;
  }

  public int getMaxBatch() {
    return maxBatch;
  }

  public void setMaxBatch(int maxBatch) {
    this.maxBatch = maxBatch;
  }

  public DataSize getMaxRequestSize() {
    return maxRequestSize;
  }

  public void setMaxRequestSize(DataSize maxRequestSize) {
    this.maxRequestSize = maxRequestSize;
  }

  public String getBootstrapAdminToken() {
    return bootstrapAdminToken;
  }

  public void setBootstrapAdminToken(String bootstrapAdminToken) {
    this.bootstrapAdminToken = bootstrapAdminToken;
  }

  public boolean isCreateInitialToken() {
    return createInitialToken;
  }

  public void setCreateInitialToken(boolean createInitialToken) {
    this.createInitialToken = createInitialToken;
  }

  public String getCallbackDefinition() {
    return callbackDefinition;
  }

  public void setCallbackDefinition(String callbackDefinition) {
    this.callbackDefinition = callbackDefinition;
  }

  public String getCallbackRetry() {
    return callbackRetry;
  }

  public void setCallbackRetry(String callbackRetry) {
    this.callbackRetry = callbackRetry;
  }

  public int getCallbackMaxAttempts() {
    return callbackMaxAttempts;
  }

  public void setCallbackMaxAttempts(int callbackMaxAttempts) {
    this.callbackMaxAttempts = callbackMaxAttempts;
  }

  public Duration getRetryAfter() {
    return retryAfter;
  }

  public void setRetryAfter(Duration retryAfter) {
    this.retryAfter = retryAfter;
  }
}
