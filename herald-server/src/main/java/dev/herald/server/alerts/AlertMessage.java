package dev.herald.server.alerts;

import dev.herald.Notice;
import dev.herald.NoticeDetail;
import dev.herald.PendingAlert;
import dev.herald.spi.PeerStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The content of an alert, as one JSON object: the payload of the alert notice, sent as is to alert
 * webhooks and rendered by {@link AlertMail} into an e-mail's subject, text and HTML. Every alert says
 * which server and environment sent it and links into the console (absolute once the console's public
 * URL is known); a failure names the notice, its definition, attempts, last error and payload. The
 * fields are documented in herald-server's README (alerts).
 */
final class AlertMessage {
  /** Characters of a payload shown in an alert. */
  static final int PAYLOAD_EXCERPT = 500;

  /** Kinds of alert. */
  static final String FAILURE = "failure";
  static final String RECOVERED = "recovered";
  static final String PEER_DOWN = "peer-down";
  static final String PEER_UP = "peer-up";
  /** The first alert of a window, sent at once; then the follow-up counting what came after. */
  static final String FIRST = "first";
  static final String FOLLOW_UP = "follow-up";

  /**
   * Where an alert comes from and where its links point.
   *
   * @param server this server's node id
   * @param environment the environment's name, or null
   * @param consoleUrl the console's base URL without a trailing slash ({@code https://h.example/console},
   *     or the path {@code /console} when the public URL is unknown)
   */
  record Source(String server, String environment, String consoleUrl) {
    static Source of(String server, AlertProperties p, String publicUrl) {
      String console = p.getConsoleUrl() != null && !p.getConsoleUrl().isBlank() ? p.getConsoleUrl().strip()
          : publicUrl != null && !publicUrl.isBlank() ? publicUrl.strip().replaceAll("/+$", "") + "/console"
          : "/console";
      String env = p.getEnvironment() == null || p.getEnvironment().isBlank() ? null : p.getEnvironment().strip();
      return new Source(server, env, console.replaceAll("/+$", ""));
    }

    String link(String path) {
      return consoleUrl + path;
    }
  }

  private AlertMessage() {}

  /**
   * A definition's failure at an endpoint.
   *
   * @param sequence {@link #FIRST} (at once) or {@link #FOLLOW_UP} (what the window counted)
   * @param openedAt when the window opened
   * @param count failures this alert reports
   * @param last the latest alert counted: its notice is the one shown
   * @param notice that notice as stored now, if it still exists
   */
  static ObjectNode failure(Source source, String sequence, String definition, String endpoint, long openedAt,
      Duration window, int count, PendingAlert last, Optional<NoticeDetail> notice) {
    ObjectNode a = head(source, FAILURE, definition);
    a.put("sequence", sequence);
    a.put("endpoint", endpoint);
    a.put("count", count);
    a.put("since", Instant.ofEpochMilli(openedAt).toString());
    a.put("windowSeconds", window.toSeconds());
    a.put("noticeId", last.noticeId().toString());
    a.put("status", last.finalFailure() ? "DEAD" : "FAILED");
    a.put("failures", last.failures());
    a.put("finalFailure", last.finalFailure());
    a.put("error", last.error());
    a.put("at", last.raisedAt().toString());
    notice.ifPresent(d -> a.set("notice", notice(d)));
    ObjectNode links = a.putObject("links");
    links.put("notice", source.link("/notices/" + last.noticeId()));
    links.put("notices", source.link("/notices?definition=" + encode(definition) + "&status="
        + (last.finalFailure() ? "DEAD" : "FAILED")));
    links.put("definition", source.link("/definitions/" + encode(definition)));
    return a;
  }

  /** The notice as stored: status, attempts, description, timestamps and the start of its payload. */
  private static ObjectNode notice(NoticeDetail d) {
    Notice n = d.notice();
    ObjectNode o = JsonMapper.shared().createObjectNode();
    o.put("id", n.id().toString());
    o.put("status", n.status().name());
    o.put("attempts", n.attempts());
    o.put("description", n.description());
    o.put("lastError", n.lastError());
    o.put("fireAt", n.fireAt().toString());
    o.put("createdAt", n.createdAt().toString());
    o.put("target", n.target());
    String payload = n.payload();
    o.put("payloadExcerpt", payload.length() <= PAYLOAD_EXCERPT ? payload : payload.substring(0, PAYLOAD_EXCERPT));
    o.put("payloadLength", payload.length());
    return o;
  }

  /** A failing definition and endpoint delivered again. */
  static ObjectNode recovered(Source source, String definition, String endpoint, long failingSince, Notice delivered,
      Instant at) {
    ObjectNode a = head(source, RECOVERED, definition);
    a.put("endpoint", endpoint);
    a.put("since", Instant.ofEpochMilli(failingSince).toString());
    a.put("noticeId", delivered.id().toString());
    a.put("at", at.toString());
    ObjectNode links = a.putObject("links");
    links.put("notice", source.link("/notices/" + delivered.id()));
    links.put("definition", source.link("/definitions/" + encode(definition)));
    return a;
  }

  /** A broker or mail server unreachable for longer than the server tolerates ({@link #PEER_DOWN}), or back. */
  static ObjectNode peer(Source source, String kind, PeerStatus p, Instant downSince, Instant at) {
    ObjectNode a = head(source, kind, null);
    a.put("channel", p.channel());
    a.put("peerKind", p.kind().words());
    a.put("peer", p.peer());
    a.put("address", p.address());
    a.put("since", downSince.toString());
    a.put("downForSeconds", Duration.between(downSince, at).toSeconds());
    a.put("failedAttempts", p.failures());
    a.put("lastError", p.lastError());
    a.put("at", at.toString());
    a.putObject("links").put("endpoints", source.link("/endpoints"));
    return a;
  }

  private static ObjectNode head(Source source, String kind, String definition) {
    ObjectNode a = JsonMapper.shared().createObjectNode();
    a.put("kind", kind);
    a.put("server", source.server());
    a.put("environment", source.environment());
    if (definition != null) {
      a.put("definition", definition);
    }
    return a;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
