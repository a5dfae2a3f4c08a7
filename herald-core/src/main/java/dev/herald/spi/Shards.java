package dev.herald.spi;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * Notices are spread over a fixed number of shards (document 004's "load balance number"); a node
 * may be limited to some of them. The shard of a notice is a stable hash of its shard key, or of
 * its id when it has none, so every node computes the same shard for the same key.
 */
public final class Shards {
  /** How many shards there are. Fixed: changing it would move stored notices between nodes. */
  public static final int COUNT = 256;

  private Shards() {}

  public static int of(String shardKey, UUID id) {
    CRC32 crc = new CRC32();
    crc.update((shardKey != null ? shardKey : id.toString()).getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % COUNT);
  }
}
