package dev.herald.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Attempts running per receiver (an http(s) origin, or a channel and its target): at most what the
 * receiver's channel takes at once, or {@code perReceiver} where the channel sets no limit of its own. A notice over its receiver's limit waits in that receiver's line, first come
 * first served, and goes back to the timer when a place frees; so a slow receiver holds its own
 * places, never the timer thread nor the other receivers' attempts.
 */
final class ReceiverLanes {
  private static final class Lane {
    int running;
    final ArrayDeque<HeldNotice> waiting = new ArrayDeque<>();
  }

  private final int perReceiver;
  private final Map<String, Lane> lanes = new HashMap<>();

  ReceiverLanes(int perReceiver) {
    this.perReceiver = perReceiver;
  }

  /**
   * True if {@code h} may start now (a place of its receiver is taken for it); false if it waits in
   * line. {@code channelLimit} is what the receiver's channel takes at once; {@link
   * dev.herald.spi.Channel#NO_LIMIT_OF_ITS_OWN} for the engine's own limit.
   */
  synchronized boolean enterOrWait(String receiver, int channelLimit, HeldNotice h) {
    Lane lane = lanes.computeIfAbsent(receiver, r -> new Lane());
    int limit = channelLimit > 0 ? channelLimit : perReceiver;
    if (lane.running < limit) {
      lane.running++;
      return true;
    }
    lane.waiting.add(h);
    return false;
  }

  /**
   * An attempt of {@code receiver} ended, or a place taken for one was not used: the place is given
   * back, and the next notice of its line still waiting (not taken meanwhile) is returned, out of the
   * line, for the caller to put back into the timer; null if none waits.
   */
  synchronized HeldNotice leave(String receiver) {
    Lane lane = lanes.get(receiver);
    if (lane == null) {
      return null;
    }
    lane.running = Math.max(0, lane.running - 1);
    HeldNotice next;
    while ((next = lane.waiting.poll()) != null) {
      if (next.stage() == HeldNotice.Stage.WAITING) {
        break;
      }
    }
    if (lane.running == 0 && lane.waiting.isEmpty()) {
      lanes.remove(receiver);
    }
    return next;
  }

  /** Every notice waiting in a line, taken out of the lines (shutdown). */
  synchronized List<HeldNotice> drain() {
    List<HeldNotice> out = new ArrayList<>();
    for (Lane lane : lanes.values()) {
      out.addAll(lane.waiting);
      lane.waiting.clear();
    }
    return out;
  }
}
