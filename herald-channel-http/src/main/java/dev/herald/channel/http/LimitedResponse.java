package dev.herald.channel.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * Reads a response and its body up to a limit, then stops: the exchange is aborted (its connection
 * closed) and the answer so far is the result, marked truncated, so that a receiver cannot make Herald
 * buffer an unbounded answer.
 */
final class LimitedResponse implements AsyncResponseConsumer<HttpTransport.Answer> {
  private final int limit;
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private volatile HttpResponse head;
  private FutureCallback<HttpTransport.Answer> done;
  private volatile HttpTransport.Answer truncated;

  LimitedResponse(int limit) {
    this.limit = limit;
  }

  /** Whether a response (its status line) arrived. */
  boolean started() {
    return head != null;
  }

  /** The answer read up to the limit, if {@code failure} is this consumer stopping there; else null. */
  HttpTransport.Answer truncatedAnswer(Exception failure) {
    return failure instanceof LimitReached ? truncated : null;
  }

  @Override
  public void consumeResponse(HttpResponse response, EntityDetails entity, HttpContext context,
      FutureCallback<HttpTransport.Answer> callback) {
    head = response;
    if (entity == null) {
      callback.completed(answer(false));
    } else {
      done = callback;
    }
  }

  @Override
  public void informationResponse(HttpResponse response, HttpContext context) {
    // 1xx: wait for the final answer
  }

  @Override
  public void updateCapacity(CapacityChannel channel) throws IOException {
    channel.update(Integer.MAX_VALUE);
  }

  @Override
  public void consume(ByteBuffer src) throws IOException {
    int n = Math.min(limit - body.size(), src.remaining());
    if (src.hasArray()) {
      body.write(src.array(), src.arrayOffset() + src.position(), n);
      src.position(src.position() + n);
    } else {
      byte[] chunk = new byte[n];
      src.get(chunk);
      body.write(chunk, 0, n);
    }
    if (src.hasRemaining()) {
      truncated = answer(true);
      throw new LimitReached();
    }
  }

  @Override
  public void streamEnd(List<? extends Header> trailers) {
    done.completed(answer(false));
  }

  @Override
  public void failed(Exception cause) {
    // reported to the exchange's callback
  }

  @Override
  public void releaseResources() {
    // nothing held
  }

  private HttpTransport.Answer answer(boolean cut) {
    HttpResponse r = head;
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (Header h : r.getHeaders()) {
      headers.add(Map.entry(h.getName(), h.getValue()));
    }
    boolean http2 = r.getVersion() != null && r.getVersion().getMajor() == 2;
    return new HttpTransport.Answer(r.getCode(), http2, headers, body.toByteArray(), cut);
  }

  /** Thrown to stop reading a body at the limit. */
  private static final class LimitReached extends IOException {
    LimitReached() {
      super("response body longer than the limit; the rest was not read");
    }
  }
}
