package dev.herald.channel.http;

import dev.herald.schedule.DurationText;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import javax.net.ssl.SSLException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.core5.http.ConnectionClosedException;

/** Failures without a response: what the attempt log says about them, and which ones mean a stale connection. */
final class TransportErrors {
  private TransportErrors() {}

  /** One line on a failure without a response, naming the setting that bounded it. */
  static String describe(Throwable failure, Target t, Duration connectTimeout, Duration timeout) {
    Throwable c = unwrap(failure);
    String msg = c.getMessage();
    if (c instanceof ConnectTimeoutException) {
      return "could not connect to " + t.endpoint() + " within " + DurationText.format(connectTimeout)
          + " (connect timeout)";
    }
    if (c instanceof SocketTimeoutException) {
      return "timed out: no complete response from " + t.endpoint() + " within " + DurationText.format(timeout)
          + " (option timeout)";
    }
    if (c instanceof ConnectException) {
      return "could not connect to " + t.endpoint() + ": " + (msg == null || msg.isBlank() ? "connection refused" : msg);
    }
    if (c instanceof SSLException) {
      return "TLS with " + t.endpoint() + " failed: " + msg;
    }
    if (c instanceof IOException) {
      return "I/O error with " + t.endpoint() + ": " + c.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }
    return "HTTP client error: " + c.getClass().getName() + (msg == null ? "" : ": " + msg);
  }

  /** The failure's own message, without the transport's wrapper. */
  static String message(Throwable failure) {
    Throwable c = unwrap(failure);
    return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
  }

  /**
   * Whether the connection ended before a single byte of a response arrived: closed by the peer, an
   * EOF, a reset or a broken pipe while writing. On a connection taken from the pool that is the
   * receiver having closed it while idle, and the request never reached its application. Timeouts,
   * refused connections and TLS failures are not.
   */
  static boolean noResponseByte(Throwable failure) {
    if (!(failure instanceof HttpTransport.NoResponse)) {
      return false; // a response had begun
    }
    Throwable c = unwrap(failure);
    if (!(c instanceof IOException) || c instanceof SocketTimeoutException || c instanceof ConnectException
        || c instanceof SSLException || c instanceof UnknownHostException) {
      return false;
    }
    for (Throwable x = c; x != null; x = x.getCause() == x ? null : x.getCause()) {
      String msg = x.getMessage() == null ? "" : x.getMessage();
      if (x instanceof ConnectionClosedException || x instanceof EOFException || x instanceof ClosedChannelException
          || msg.contains("Connection reset") || msg.contains("Broken pipe")) {
        return true;
      }
    }
    return false;
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof HttpTransport.NoResponse && failure.getCause() != null ? failure.getCause() : failure;
  }
}
