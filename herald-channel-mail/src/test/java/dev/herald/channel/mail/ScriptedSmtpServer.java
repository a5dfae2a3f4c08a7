package dev.herald.channel.mail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An SMTP server that speaks the protocol for real but answers {@code RCPT TO} and the end of
 * {@code DATA} with the replies given, for the refusals GreenMail never makes (550 unknown
 * mailbox, 451 try again later).
 */
final class ScriptedSmtpServer implements AutoCloseable {
  private final ServerSocket socket;
  private final String rcptReply;
  private final String dataReply;
  final AtomicInteger messagesAccepted = new AtomicInteger();

  ScriptedSmtpServer(String rcptReply, String dataReply) throws IOException {
    this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.rcptReply = rcptReply;
    this.dataReply = dataReply;
    Thread.ofVirtual().start(this::acceptLoop);
  }

  int port() {
    return socket.getLocalPort();
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      try {
        Socket s = socket.accept();
        Thread.ofVirtual().start(() -> converse(s));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void converse(Socket s) {
    try (s; var in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
        OutputStream out = s.getOutputStream()) {
      reply(out, "220 scripted ESMTP");
      String line;
      while ((line = in.readLine()) != null) {
        String verb = line.length() >= 4 ? line.substring(0, 4).toUpperCase() : line.toUpperCase();
        switch (verb) {
          case "EHLO" -> reply(out, "250-scripted\r\n250 8BITMIME");
          case "RCPT" -> reply(out, rcptReply);
          case "DATA" -> {
            reply(out, "354 end with <CRLF>.<CRLF>");
            while ((line = in.readLine()) != null && !line.equals(".")) {
              // the message itself is not kept
            }
            if (dataReply.startsWith("250")) {
              messagesAccepted.incrementAndGet();
            }
            reply(out, dataReply);
          }
          case "QUIT" -> {
            reply(out, "221 bye");
            return;
          }
          default -> reply(out, "250 OK");
        }
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  private static void reply(OutputStream out, String text) throws IOException {
    out.write((text + "\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
