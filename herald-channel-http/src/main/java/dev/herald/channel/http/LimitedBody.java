package dev.herald.channel.http;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a response body up to a limit and then stops (cancelling the rest), so that a receiver
 * cannot make Herald buffer an unbounded answer.
 */
final class LimitedBody implements HttpResponse.BodySubscriber<LimitedBody.Body> {
  /** The bytes read, and whether there were more. */
  record Body(byte[] bytes, boolean truncated) {}

  private final int limit;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final CompletableFuture<Body> result = new CompletableFuture<>();
  private Flow.Subscription subscription;

  LimitedBody(int limit) {
    this.limit = limit;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (result.isDone()) {
      return;
    }
    boolean more = false;
    for (ByteBuffer b : items) {
      int n = Math.min(limit - out.size(), b.remaining());
      byte[] chunk = new byte[n];
      b.get(chunk);
      out.write(chunk, 0, n);
      more |= b.hasRemaining();
    }
    if (more) {
      subscription.cancel();
      result.complete(new Body(out.toByteArray(), true));
    } else {
      subscription.request(1);
    }
  }

  @Override
  public void onError(Throwable t) {
    result.completeExceptionally(t);
  }

  @Override
  public void onComplete() {
    result.complete(new Body(out.toByteArray(), false));
  }

  @Override
  public CompletionStage<Body> getBody() {
    return result;
  }
}
