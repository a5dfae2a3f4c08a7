package dev.herald.spi;

import java.time.Duration;
import java.time.Instant;

/**
 * What a channel talks to (a broker, a mail server, a webhook endpoint) and whether it answers, as the
 * channel saw it last: for health checks, the console, metrics and alerts.
 *
 * @param channel the channel's name, e.g. {@code amqp}
 * @param kind what the peer is
 * @param peer its name within the channel: a broker's name, {@code host:port}, an endpoint's origin
 * @param address where it is, without credentials, e.g. {@code amqp://rabbit:5672/orders}
 * @param state UP, DOWN, or UNKNOWN before the channel first tried it
 * @param since when it entered this state; null while UNKNOWN
 * @param failures attempts that failed on it since it went DOWN (0 while UP)
 * @param lastError the last error seen; null if none
 * @param lastSuccessAt when it last answered; null if never
 */
public record PeerStatus(String channel, Kind kind, String peer, String address, State state, Instant since,
    long failures, String lastError, Instant lastSuccessAt) {

  /** What a peer is. Brokers and mail servers are the channel's infrastructure; endpoints are receivers. */
  public enum Kind {
    BROKER("broker"),
    MAIL_SERVER("mail server"),
    ENDPOINT("endpoint");

    private final String words;

    Kind(String words) {
      this.words = words;
    }

    /** How messages name it: {@code broker}, {@code mail server}, {@code endpoint}. */
    public String words() {
      return words;
    }

    /** Whether the channel cannot deliver anything through it while it is down (not one receiver of many). */
    public boolean infrastructure() {
      return this != ENDPOINT;
    }
  }

  /** A peer's state. */
  public enum State {
    /** Not tried yet. */
    UNKNOWN,
    /** Answering. */
    UP,
    /** Not answering, or refusing every attempt. */
    DOWN
  }

  /** How long it has been DOWN at {@code now}; zero unless DOWN. */
  public Duration downFor(Instant now) {
    return state == State.DOWN && since != null && now.isAfter(since) ? Duration.between(since, now) : Duration.ZERO;
  }
}
