package dev.herald.channel.http;

import dev.herald.schedule.DurationText;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import javax.net.ssl.SSLException;

/** Failures without a response: what the attempt log says about them, and which ones mean a stale connection. */
final class TransportErrors {
  private TransportErrors() {}

  /** One line on a failure without a response, naming the setting that bounded it. */
  static String describe(Throwable c, Target t, Duration connectTimeout, Duration timeout) {
    String msg = c.getMessage();
    if (c instanceof HttpConnectTimeoutException) {
      return "could not connect to " + t.endpoint() + " within " + DurationText.format(connectTimeout)
          + " (connect timeout)";
    }
    if (c instanceof HttpTimeoutException) {
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

  /**
   * Whether the connection ended before a single byte of a response arrived: the JDK client says
   * "header parser received no bytes" (or fails with an EOF or a reset while writing). On a connection
   * taken from the pool that is the receiver having closed it while idle, and the request never
   * reached its application. Timeouts, refused connections and TLS failures are not.
   */
  static boolean noResponseByte(Throwable c) {
    if (!(c instanceof IOException) || c instanceof HttpTimeoutException || c instanceof ConnectException
        || c instanceof SSLException) {
      return false;
    }
    for (Throwable x = c; x != null; x = x.getCause() == x ? null : x.getCause()) {
      String msg = x.getMessage() == null ? "" : x.getMessage();
      if (msg.contains("received no bytes") || x instanceof EOFException || msg.contains("Connection reset")
          || msg.contains("Broken pipe")) {
        return true;
      }
    }
    return false;
  }
}
