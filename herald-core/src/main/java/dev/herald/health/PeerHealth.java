package dev.herald.health;

import dev.herald.spi.PeerStatus;
import dev.herald.spi.PeerStatus.Kind;
import dev.herald.spi.PeerStatus.State;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A channel's record of its peers (brokers, mail servers, endpoints): whether each answers, and a WARN
 * line on logger {@value #LOGGER} at every change of state: when it goes DOWN, every {@code
 * remindEvery} while it stays down (with the failed attempts counted since), and when it is UP again.
 * Never a line per attempt. Channels feed it from their own threads; it is thread-safe and cheap.
 */
public final class PeerHealth {
  /** The logger of peer state changes. */
  public static final String LOGGER = "dev.herald.health";
  /** How often a peer still down is logged again, unless the channel says otherwise. */
  public static final Duration DEFAULT_REMIND_EVERY = Duration.ofMinutes(5);
  /** Peers kept; past this, those UP and quiet longest are forgotten (endpoints can be many). */
  static final int MAX_PEERS = 10_000;

  private static final Logger log = LoggerFactory.getLogger(LOGGER);

  private final String channel;
  private final Kind kind;
  private final Clock clock;
  private final int failuresToDown;
  private final Duration remindEvery;
  private final Map<String, Peer> peers = new ConcurrentHashMap<>();
  private final Consumer<String> warn;

  /**
   * @param channel the channel's name, for messages
   * @param kind what its peers are
   * @param failuresToDown consecutive failed attempts that make an UP peer DOWN (1 for a broker's
   *     connection; an endpoint's circuit threshold)
   * @param remindEvery how often a peer still down is logged again
   */
  public PeerHealth(String channel, Kind kind, Clock clock, int failuresToDown, Duration remindEvery) {
    this(channel, kind, clock, failuresToDown, remindEvery, log::warn);
  }

  /** @param warn where the lines go (tests read them) */
  PeerHealth(String channel, Kind kind, Clock clock, int failuresToDown, Duration remindEvery, Consumer<String> warn) {
    this.warn = warn;
    if (failuresToDown < 1) {
      throw new IllegalArgumentException("failuresToDown must be at least 1, was " + failuresToDown);
    }
    if (remindEvery == null || remindEvery.isNegative() || remindEvery.isZero()) {
      throw new IllegalArgumentException("remindEvery must be positive, was " + remindEvery);
    }
    this.channel = channel;
    this.kind = kind;
    this.clock = clock;
    this.failuresToDown = failuresToDown;
    this.remindEvery = remindEvery;
  }

  /** Makes a peer known before its first use (a configured broker), shown as UNKNOWN until tried. */
  public void register(String peer, String address) {
    peers.computeIfAbsent(peer, p -> new Peer(address));
  }

  /** The peer answered (a delivery it took, a connection it accepted, a reply of any kind). */
  public void succeeded(String peer) {
    Peer p = peer(peer);
    synchronized (p) {
      Instant now = clock.instant();
      if (p.state == State.DOWN) {
        warn.accept("Herald " + channel + " " + kind.words() + " '" + peer + "'" + at(p) + " is UP again after "
            + words(Duration.between(p.since, now)) + " DOWN; " + p.failures + " failed attempt(s) meanwhile");
      }
      if (p.state != State.UP) {
        p.state = State.UP;
        p.since = now;
      }
      p.consecutive = 0;
      p.failures = 0;
      p.lastSuccessAt = now;
    }
  }

  /** An attempt failed because of the peer (it cannot be reached, or it refused for a reason of its own). */
  public void failed(String peer, String error) {
    fault(peer, error, true);
  }

  /** The peer cannot be reached now (a lost connection, a failed probe): DOWN at once, no attempt counted. */
  public void unreachable(String peer, String error) {
    fault(peer, error, false);
  }

  private void fault(String peer, String error, boolean attempt) {
    Peer p = peer(peer);
    synchronized (p) {
      Instant now = clock.instant();
      p.lastError = error;
      if (attempt) {
        p.consecutive++;
      }
      if (p.state == State.DOWN) {
        if (attempt) {
          p.failures++;
        }
        if (Duration.between(p.lastLogged, now).compareTo(remindEvery) >= 0) {
          p.lastLogged = now;
          warn.accept("Herald " + channel + " " + kind.words() + " '" + peer + "'" + at(p) + " still DOWN since "
              + p.since + " (" + words(Duration.between(p.since, now)) + "); " + p.failures
              + " failed attempt(s) since; last error: " + oneLine(error));
        }
      } else if (!attempt || p.consecutive >= failuresToDown) {
        p.state = State.DOWN;
        p.since = now;
        p.lastLogged = now;
        p.failures = attempt ? p.consecutive : 0;
        warn.accept("Herald " + channel + " " + kind.words() + " '" + peer + "'" + at(p) + " is DOWN: " + oneLine(error)
            + (attempt && failuresToDown > 1 ? " (" + p.consecutive + " failed attempts in a row)" : ""));
      }
    }
  }

  /** The peer's state now; UNKNOWN if it was never seen. */
  public PeerStatus status(String peer) {
    Peer p = peers.get(peer);
    return p == null ? new PeerStatus(channel, kind, peer, null, State.UNKNOWN, null, 0, null, null) : p.status(peer);
  }

  /** Every peer known, by name. */
  public List<PeerStatus> all() {
    List<PeerStatus> out = new ArrayList<>();
    peers.forEach((name, p) -> out.add(p.status(name)));
    out.sort(Comparator.comparing(PeerStatus::peer));
    return out;
  }

  private Peer peer(String name) {
    Peer p = peers.get(name);
    if (p != null) {
      return p;
    }
    if (peers.size() >= MAX_PEERS) {
      forgetQuiet();
    }
    return peers.computeIfAbsent(name, n -> new Peer(null));
  }

  /** Forgets the tenth of the peers that are UP and answered longest ago. */
  private void forgetQuiet() {
    peers.entrySet().stream()
        .filter(e -> e.getValue().state == State.UP)
        .sorted(Comparator.comparing(e -> e.getValue().lastSuccessAt))
        .limit(MAX_PEERS / 10)
        .map(Map.Entry::getKey)
        .toList()
        .forEach(peers::remove);
  }

  private static String at(Peer p) {
    return p.address == null ? "" : " (" + p.address + ")";
  }

  /** {@code 42s}, {@code 3m 5s}, {@code 2h 10m}: how long, for people. */
  static String words(Duration d) {
    long s = Math.max(0, d.toSeconds());
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return s / 60 + "m " + s % 60 + "s";
    }
    return s / 3600 + "h " + s % 3600 / 60 + "m";
  }

  private static String oneLine(String s) {
    if (s == null) {
      return "no detail";
    }
    int end = s.indexOf('\n');
    return end < 0 ? s : s.substring(0, end).stripTrailing();
  }

  private final class Peer {
    final String address;
    State state = State.UNKNOWN;
    Instant since;
    Instant lastLogged = Instant.EPOCH;
    Instant lastSuccessAt = Instant.EPOCH;
    long failures;
    int consecutive;
    String lastError;

    Peer(String address) {
      this.address = address;
    }

    synchronized PeerStatus status(String name) {
      return new PeerStatus(channel, kind, name, address, state, since, failures, lastError,
          lastSuccessAt.equals(Instant.EPOCH) ? null : lastSuccessAt);
    }
  }
}
