package dev.herald.server;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.coyote.AbstractProcessor;
import org.apache.coyote.Constants;
import org.apache.coyote.Request;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.net.AbstractEndpoint;
import org.apache.tomcat.util.net.SocketEvent;
import org.apache.tomcat.util.net.SocketWrapperBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;

/**
 * Ends slowloris: a connection that takes longer than {@code herald.server.header-timeout} to send a
 * request's line and headers is closed. Tomcat's connection timeout bounds each read only, so a client
 * sending a header byte every few seconds held its connection for ever, and a few thousand of them
 * filled the connection limit (API, console and health stopped answering). Every 250 ms this looks at
 * each open connection's request: still being parsed since its first byte for longer than the limit,
 * it is failed as a read timeout would be.
 */
final class HeaderTimeout implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HeaderTimeout.class);

  /** Tomcat's NIO protocol with its endpoint reachable, to see the open connections. */
  public static final class Protocol extends Http11NioProtocol {
    AbstractEndpoint<?, ?> endpoint() {
      return getEndpoint();
    }
  }

  private final long limitNanos;
  private final List<Protocol> protocols = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("herald-header-timeout").factory());

  HeaderTimeout(Duration limit) {
    this.limitNanos = limit.toNanos();
    timer.scheduleWithFixedDelay(this::sweep, 250, 250, TimeUnit.MILLISECONDS);
  }

  @Override
  public void customize(TomcatServletWebServerFactory factory) {
    factory.setProtocol(Protocol.class.getName());
    factory.addConnectorCustomizers(c -> {
      if (c.getProtocolHandler() instanceof Protocol p) {
        protocols.add(p);
      }
    });
  }

  private void sweep() {
    try {
      long now = System.nanoTime();
      for (Protocol p : protocols) {
        AbstractEndpoint<?, ?> endpoint = p.endpoint();
        if (endpoint == null) {
          continue;
        }
        for (SocketWrapperBase<?> socket : endpoint.getConnections()) {
          // A processor stays with a connection between reads only while a request is incomplete (it
          // is released once a request ended); its start is the first byte of the request line.
          if (socket.getCurrentProcessor() instanceof AbstractProcessor processor && !processor.isAsync()) {
            Request request = processor.getRequest();
            long started = request.getStartTimeNanos();
            if (request.getRequestProcessor().getStage() != Constants.STAGE_SERVICE && started > 0
                && now - started > limitNanos) {
              end(endpoint, socket);
            }
          }
        }
      }
    } catch (RuntimeException e) {
      log.warn("header timeout sweep failed: {}", e.toString());
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void end(AbstractEndpoint endpoint, SocketWrapperBase socket) {
    log.debug("closing a connection from {}: its request line and headers took longer than {} ms",
        socket.getRemoteAddr(), TimeUnit.NANOSECONDS.toMillis(limitNanos));
    socket.setError(new SocketTimeoutException("request headers not complete within the header timeout"));
    if (!endpoint.processSocket(socket, SocketEvent.ERROR, true)) {
      socket.close();
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
