package dev.herald.server.console;

import dev.herald.Herald;
import dev.herald.spi.Channel;
import dev.herald.spi.PeerStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ModelAttribute;

/**
 * What every console page knows of this node's connections: each broker and mail server with its
 * state ({@link Channel#peers()}), and per channel how many webhook endpoints are down. The endpoints
 * page shows them all; the overview warns about the ones down.
 */
@ControllerAdvice(basePackageClasses = ConnectionsPanel.class)
class ConnectionsPanel {
  private final Herald herald;

  ConnectionsPanel(Herald herald) {
    this.herald = herald;
  }

  /** Brokers and mail servers, one row each. */
  @ModelAttribute("connections")
  List<Map<String, Object>> connections() {
    Instant now = herald.clock().instant();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Channel c : herald.channels()) {
      for (PeerStatus p : c.peers()) {
        if (p.kind().infrastructure()) {
          rows.add(row(p, now));
        }
      }
    }
    return rows;
  }

  /** Per channel with endpoints: how many it knows and how many are down. */
  @ModelAttribute("endpointHealth")
  List<Map<String, Object>> endpointHealth() {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Channel c : herald.channels()) {
      long all = 0;
      long down = 0;
      for (PeerStatus p : c.peers()) {
        if (!p.kind().infrastructure()) {
          all++;
          down += p.state() == PeerStatus.State.DOWN ? 1 : 0;
        }
      }
      if (all > 0) {
        rows.add(Map.of("channel", c.name(), "endpoints", all, "down", down));
      }
    }
    return rows;
  }

  private static Map<String, Object> row(PeerStatus p, Instant now) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("channel", p.channel());
    r.put("kind", p.kind().words());
    r.put("peer", p.peer());
    r.put("address", p.address() == null ? "" : p.address());
    r.put("state", p.state().name().toLowerCase(Locale.ROOT));
    r.put("down", p.state() == PeerStatus.State.DOWN);
    r.put("since", p.since() == null ? "" : p.since().toString());
    r.put("downFor", p.state() == PeerStatus.State.DOWN ? words(p.downFor(now).toSeconds()) : "");
    r.put("failures", p.failures());
    r.put("lastError", p.lastError() == null ? "" : Masking.signatures(p.lastError()));
    return r;
  }

  private static String words(long s) {
    return s < 60 ? s + "s" : s < 3600 ? s / 60 + "m " + s % 60 + "s" : s / 3600 + "h " + s % 3600 / 60 + "m";
  }
}
