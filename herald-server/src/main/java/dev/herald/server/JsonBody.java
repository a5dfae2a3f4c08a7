package dev.herald.server;

import dev.herald.JsonPayload;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a request body as a stream, so that hostile input costs bounded memory: the body's bytes
 * ({@code max-request-size}, 413), the bytes every request reads at once on this server ({@code
 * max-request-bytes-in-flight}, 503 with Retry-After), the items of a batch ({@code notices}, {@code
 * ids}: at most {@code max-batch}, refused once the count is known without keeping the rest) and the
 * JSON tokens kept as a tree are checked while reading. Each notice's {@code payload} is not built as
 * a tree at all: it is copied as compact JSON text (numbers exactly as written), up to the payload
 * limit; past it the rest is skipped and the item is refused. The copy is the core's {@link JsonPayload},
 * so that each payload is parsed once, here.
 */
final class JsonBody {
  /** The limits of one read. */
  record Limits(long maxBytes, int maxBatch, int maxTokens, int maxPayloadBytes, long readTimeoutMillis) {}

  /** A notice's payload, read as compact JSON text; {@code tooLarge} when it passed the limit (json is then null). */
  record RawPayload(JsonPayload json, boolean tooLarge, int limit) {}

  /** Bytes of request bodies being read on this server; a read that would pass the bound is refused. */
  static final class InFlight {
    private final long max;
    private final AtomicLong used = new AtomicLong();

    InFlight(long max) {
      this.max = max;
    }

    boolean take(long n) {
      long now = used.addAndGet(n);
      if (now > max) {
        used.addAndGet(-n);
        return false;
      }
      return true;
    }

    void give(long n) {
      used.addAndGet(-n);
    }

    long used() {
      return used.get();
    }
  }

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int CHUNK = 64 * 1024;

  private final Limits limits;
  private final InFlight inFlight;
  private final Duration retryAfter;
  private int tokens;

  private JsonBody(Limits limits, InFlight inFlight, Duration retryAfter) {
    this.limits = limits;
    this.inFlight = inFlight;
    this.retryAfter = retryAfter;
  }

  /**
   * Reads one JSON value from {@code in} (whose declared length is {@code declared}, -1 if unknown).
   *
   * @throws ApiException 400 malformed or over a batch limit, 413 too large, 503 when the server reads
   *     too many bytes at once already
   */
  static JsonNode read(InputStream in, long declared, Limits limits, InFlight inFlight, Duration retryAfter) {
    if (declared > limits.maxBytes()) {
      throw tooLarge(declared, limits.maxBytes());
    }
    JsonBody body = new JsonBody(limits, inFlight, retryAfter);
    try (Counted counted = body.new Counted(in);
        JsonParser p = JsonInput.MAPPER.createParser(counted)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw ApiException.malformed("the request body is empty; send a JSON object");
      }
      JsonNode root = body.value(p, first, 0, null, false);
      if (p.nextToken() != null) {
        throw ApiException.malformed("malformed JSON" + where(p.currentLocation()) + ": Unrecognized token '"
            + p.getString() + "': Trailing token (of type " + p.currentToken() + ") found after value");
      }
      return root;
    } catch (JacksonException e) {
      if (e.getCause() instanceof ApiException a) {
        throw a;
      }
      String what = e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage();
      throw ApiException.malformed("malformed JSON" + where(e.getLocation()) + ": "
          + what.lines().findFirst().orElse(what));
    } catch (IOException e) {
      throw ApiException.of(400, "bad_request", "could not read the request body: " + e.getMessage());
    }
  }

  private static String where(TokenStreamLocation at) {
    return at == null || at.getLineNr() < 1 ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
  }

  /**
   * One value as a tree. {@code field} is the name it has in its parent object (null in an array);
   * {@code noticeItem} marks an item of the top-level {@code notices} array, whose {@code payload} is
   * copied raw. The top-level {@code notices} and {@code ids} arrays are batches.
   */
  private JsonNode value(JsonParser p, JsonToken t, int depth, String field, boolean noticeItem) {
    count();
    switch (t) {
      case START_OBJECT -> {
        ObjectNode o = NODES.objectNode();
        for (JsonToken n = p.nextToken(); n != JsonToken.END_OBJECT; n = p.nextToken()) {
          String name = p.currentName();
          JsonToken v = p.nextToken();
          if (noticeItem && name.equals("payload")) {
            o.putPOJO(name, payload(p, v));
            continue;
          }
          if (o.has(name)) {
            throw ApiException.malformed("malformed JSON" + where(p.currentLocation()) + ": Duplicate Object property \""
                + name + "\"");
          }
          o.set(name, value(p, v, depth + 1, name, false));
        }
        return o;
      }
      case START_ARRAY -> {
        ArrayNode a = NODES.arrayNode();
        boolean batch = depth == 1 && ("notices".equals(field) || "ids".equals(field));
        int n = 0;
        for (JsonToken v = p.nextToken(); v != JsonToken.END_ARRAY; v = p.nextToken()) {
          if (batch && n == limits.maxBatch()) {
            int total = n + 1 + skipRest(p, v);
            throw ApiException.invalid(field, "holds " + total + " items; the limit is " + limits.maxBatch()
                + " per request (herald.server.max-batch)");
          }
          a.add(value(p, v, depth + 1, null, depth == 1 && "notices".equals(field)));
          n++;
        }
        return a;
      }
      case VALUE_STRING -> {
        return NODES.stringNode(p.getString());
      }
      case VALUE_NUMBER_INT -> {
        return NODES.numberNode(p.getBigIntegerValue());
      }
      case VALUE_NUMBER_FLOAT -> {
        return NODES.numberNode(p.getDecimalValue());
      }
      case VALUE_TRUE -> {
        return NODES.booleanNode(true);
      }
      case VALUE_FALSE -> {
        return NODES.booleanNode(false);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> throw ApiException.malformed("malformed JSON" + where(p.currentLocation()) + ": unexpected " + t);
    }
  }

  /** Skips the rest of a batch array after {@code current}'s value; returns how many more items there were. */
  private static int skipRest(JsonParser p, JsonToken current) {
    p.skipChildren();
    int more = 0;
    for (JsonToken v = p.nextToken(); v != JsonToken.END_ARRAY; v = p.nextToken()) {
      p.skipChildren();
      more++;
    }
    return more;
  }

  private void count() {
    if (++tokens > limits.maxTokens()) {
      throw ApiException.tooLarge("the request holds more than " + limits.maxTokens() + " JSON values outside"
          + " payloads; send fewer items per request");
    }
  }

  /**
   * Copies the value as compact JSON text, numbers as written, into the core's {@link JsonPayload.Writer}:
   * the text is valid JSON by construction, so intake does not scan it again. Stops keeping it past the
   * payload limit.
   */
  private RawPayload payload(JsonParser p, JsonToken first) {
    JsonPayload.Writer w = JsonPayload.writer();
    int limit = limits.maxPayloadBytes();
    boolean tooLarge = false;
    int depth = 0;
    JsonToken t = first;
    while (true) {
      if (!tooLarge) {
        switch (t) {
          case START_OBJECT -> w.startObject();
          case END_OBJECT -> w.endObject();
          case START_ARRAY -> w.startArray();
          case END_ARRAY -> w.endArray();
          case PROPERTY_NAME -> w.name(p.currentName());
          case VALUE_STRING -> w.string(p.getString());
          case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> w.number(p.getString());
          case VALUE_TRUE -> w.bool(true);
          case VALUE_FALSE -> w.bool(false);
          case VALUE_NULL -> w.nullValue();
          default -> throw ApiException.malformed("malformed JSON" + where(p.currentLocation()) + ": unexpected " + t);
        }
        tooLarge = w.utf8Length() > limit;
      }
      if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
        depth++;
      } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
        depth--;
      }
      if (depth == 0) {
        break;
      }
      t = p.nextToken();
    }
    return tooLarge ? new RawPayload(null, true, limit) : new RawPayload(w.payload(), false, limit);
  }

  private static ApiException tooLarge(long declared, long max) {
    return ApiException.tooLarge("the request body is " + (declared > 0 ? declared + " bytes" : "larger than the limit")
        + "; the limit is " + max + " bytes (herald.server.max-request-size)");
  }

  /**
   * The body's bytes: counted against the request's limit and the server's bytes in flight (taken a
   * chunk at a time, all given back when the read ends), with a deadline for the whole body.
   */
  private final class Counted extends FilterInputStream {
    private long read;
    private long taken;
    private final long deadline = System.nanoTime() + limits.readTimeoutMillis() * 1_000_000;

    Counted(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (System.nanoTime() > deadline) {
        throw ApiException.of(408, "request_timeout", "the request body did not arrive within "
            + limits.readTimeoutMillis() + " ms (herald.server.body-timeout)");
      }
      int n = super.read(b, off, len);
      if (n > 0) {
        read += n;
        if (read > limits.maxBytes()) {
          throw tooLarge(-1, limits.maxBytes());
        }
        while (read > taken) {
          if (!inFlight.take(CHUNK)) {
            throw ApiException.unavailable("busy", "the server is reading too many request bodies at once"
                + " (herald.server.max-request-bytes-in-flight); nothing was changed, try again", retryAfter);
          }
          taken += CHUNK;
        }
      }
      return n;
    }

    @Override
    public void close() throws IOException {
      inFlight.give(taken);
      taken = 0;
      super.close();
    }
  }
}
