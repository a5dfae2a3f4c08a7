package dev.herald.channel.amqp;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongFunction;

/**
 * A TCP proxy in front of a real broker that reads the AMQP 0-9-1 frames the broker sends and
 * takes the publisher confirms in hand: every {@code basic.ack} is first split into one per
 * delivery tag (the broker may confirm several at once), then {@link #rule} says what becomes of
 * each: passed on at once, held until the test releases it (alone, or with others in one {@code
 * multiple} ack, in any order), or turned into a {@code basic.nack}. Everything else passes
 * unchanged. With it, a test shows what the broker would do on its own only now and then: confirms
 * out of order, several at once, one very late, a refusal.
 */
final class ConfirmProxy implements AutoCloseable {
  enum Action { PASS, HOLD, NACK }

  private static final int FRAME_METHOD = 1;
  private static final int FRAME_END = 0xCE;
  private static final int BASIC = 60;
  private static final int ACK = 80;
  private static final int NACK = 120;

  /** A confirm the broker sent and the proxy holds back. */
  private record Held(OutputStream client, int channel, long tag) {}

  private final ServerSocket server;
  private final int upstreamPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<Held> held = new ArrayList<>();
  private volatile LongFunction<Action> rule = tag -> Action.PASS;
  private final java.util.concurrent.atomic.AtomicInteger confirms = new java.util.concurrent.atomic.AtomicInteger();

  ConfirmProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(this::accept);
  }

  String uri() {
    return "amqp://guest:guest@127.0.0.1:" + server.getLocalPort();
  }

  /** What becomes of each confirm from now on, by delivery tag (1 for a channel's first message). */
  void rule(LongFunction<Action> rule) {
    this.rule = rule;
  }

  /** The delivery tags held now, in the order the broker confirmed them. */
  synchronized List<Long> held() {
    return held.stream().map(Held::tag).toList();
  }

  /** How many messages the broker has confirmed (acked or nacked) so far, held or not. */
  int confirms() {
    return confirms.get();
  }

  /** Passes on the held confirm of {@code tag} alone. */
  synchronized void release(long tag) throws IOException {
    for (Held h : List.copyOf(held)) {
      if (h.tag() == tag) {
        held.remove(h);
        send(h.client(), h.channel(), ACK, tag, false);
      }
    }
  }

  /**
   * Passes on one {@code basic.ack} with {@code multiple} set for {@code tag}: it confirms every
   * message up to {@code tag} the client still awaits. Only held confirms may be covered by it.
   */
  synchronized void releaseUpTo(long tag) throws IOException {
    Held last = null;
    for (Held h : List.copyOf(held)) {
      if (h.tag() <= tag) {
        held.remove(h);
        last = h;
      }
    }
    if (last != null) {
      send(last.client(), last.channel(), ACK, tag, true);
    }
  }

  /** Passes on every held confirm, one by one. */
  synchronized void releaseAll() throws IOException {
    for (Held h : List.copyOf(held)) {
      held.remove(h);
      send(h.client(), h.channel(), ACK, h.tag(), false);
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        sockets.add(client);
        sockets.add(upstream);
        Thread.ofVirtual().start(() -> copy(client, upstream));
        Thread.ofVirtual().start(() -> frames(upstream, client));
      } catch (IOException e) {
        return;
      }
    }
  }

  /** Client to broker: bytes as they are. */
  private static void copy(Socket from, Socket to) {
    byte[] buf = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      closeBoth(from, to);
    }
  }

  /** Broker to client, frame by frame, confirms taken in hand. */
  private void frames(Socket from, Socket to) {
    // per channel: every tag up to the floor is confirmed by the broker; above it, the ones in the set
    Map<Integer, Long> floor = new HashMap<>();
    Map<Integer, TreeSet<Long>> above = new HashMap<>();
    try (DataInputStream in = new DataInputStream(from.getInputStream()); OutputStream out = to.getOutputStream()) {
      while (true) {
        int type = in.readUnsignedByte();
        int channel = in.readUnsignedShort();
        int size = in.readInt();
        byte[] payload = new byte[size];
        in.readFully(payload);
        int end = in.readUnsignedByte();
        ByteBuffer p = ByteBuffer.wrap(payload);
        if (type == FRAME_METHOD && size >= 13 && p.getShort(0) == BASIC && (p.getShort(2) == ACK || p.getShort(2) == NACK)) {
          long tag = p.getLong(4);
          boolean multiple = (p.get(12) & 1) != 0;
          boolean ack = p.getShort(2) == ACK;
          long low = floor.getOrDefault(channel, 0L);
          TreeSet<Long> seen = above.computeIfAbsent(channel, c -> new TreeSet<>());
          List<Long> tags = new ArrayList<>();
          for (long t = multiple ? low + 1 : tag; t <= tag; t++) {
            if (t > low && seen.add(t)) {
              tags.add(t);
            }
          }
          while (seen.remove(floor.getOrDefault(channel, 0L) + 1)) {
            floor.merge(channel, 1L, Long::sum);
          }
          confirms.addAndGet(tags.size());
          for (long t : tags) {
            Action a = ack ? rule.apply(t) : Action.NACK;
            synchronized (this) {
              switch (a) {
                case PASS -> send(out, channel, ACK, t, false);
                case NACK -> send(out, channel, NACK, t, false);
                case HOLD -> held.add(new Held(out, channel, t));
              }
            }
          }
          continue;
        }
        synchronized (this) {
          out.write(type);
          out.write(channel >> 8);
          out.write(channel);
          out.write(ByteBuffer.allocate(4).putInt(size).array());
          out.write(payload);
          out.write(end);
          out.flush();
        }
      }
    } catch (IOException e) { // EOFException too: one side went away
      closeBoth(from, to);
    }
  }

  private static void send(OutputStream out, int channel, int method, long tag, boolean multiple) throws IOException {
    ByteBuffer f = ByteBuffer.allocate(7 + 13 + 1);
    f.put((byte) FRAME_METHOD).putShort((short) channel).putInt(13);
    f.putShort((short) BASIC).putShort((short) method).putLong(tag).put((byte) (multiple ? 1 : 0));
    f.put((byte) FRAME_END);
    out.write(f.array());
    out.flush();
  }

  private static void closeBoth(Socket a, Socket b) {
    try {
      a.close();
      b.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
