package dev.herald.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the CPU went in a JFR recording: execution samples by thread, by top frame (self) and by any
 * frame on the stack (total); native samples (threads in socket reads, i.e. waiting on the database) by
 * thread and top frame.
 */
final class JfrSummary {
  private JfrSummary() {}

  static void print(Path file, int top) throws IOException {
    Map<String, Integer> byThread = new HashMap<>();
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> total = new HashMap<>();
    Map<String, Integer> selfHerald = new HashMap<>();
    Map<String, Integer> nativeByThread = new HashMap<>();
    Map<String, Integer> nativeTop = new HashMap<>();
    int samples = 0;
    int nativeSamples = 0;
    long allocTotal = 0;
    Map<String, Long> allocByThread = new HashMap<>();
    Map<String, Long> allocByFrame = new HashMap<>();
    int gcs = 0;
    long gcPauseTotal = 0;
    long gcPauseMax = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      String type = e.getEventType().getName();
      boolean exec = type.equals("jdk.ExecutionSample");
      boolean nat = type.equals("jdk.NativeMethodSample");
      if (type.equals("jdk.ObjectAllocationSample")) {
        RecordedThread t = e.getThread("eventThread");
        String thread = threadGroup(t == null ? "?" : t.getJavaName() != null ? t.getJavaName() : t.getOSName());
        long weight = e.getLong("weight");
        allocTotal += weight;
        allocByThread.merge(thread, weight, Long::sum);
        List<RecordedFrame> frames = e.getStackTrace() == null ? List.of() : e.getStackTrace().getFrames();
        String where = firstInteresting(frames);
        String herald = firstHerald(frames);
        allocByFrame.merge(e.getClass("objectClass").getName() + "  <- " + where
            + (herald != null && !herald.equals(where) ? "  <- " + herald : ""), weight, Long::sum);
        continue;
      }
      if (type.equals("jdk.GarbageCollection")) {
        gcs++;
        long pause = e.getDuration("sumOfPauses").toMillis();
        gcPauseTotal += pause;
        gcPauseMax = Math.max(gcPauseMax, pause);
        continue;
      }
      if (!exec && !nat) {
        continue;
      }
      RecordedThread t = e.getThread("sampledThread");
      String thread = threadGroup(t == null ? "?" : t.getJavaName() != null ? t.getJavaName() : t.getOSName());
      RecordedStackTrace st = e.getStackTrace();
      List<RecordedFrame> frames = st == null ? List.of() : st.getFrames();
      String topFrame = frames.isEmpty() ? "?" : name(frames.getFirst());
      if (nat) {
        nativeSamples++;
        nativeByThread.merge(thread, 1, Integer::sum);
        nativeTop.merge(thread + "  " + firstInteresting(frames), 1, Integer::sum);
        continue;
      }
      samples++;
      byThread.merge(thread, 1, Integer::sum);
      self.merge(topFrame, 1, Integer::sum);
      String herald = firstHerald(frames);
      if (herald != null) {
        selfHerald.merge(herald, 1, Integer::sum);
      }
      Set<String> seen = new HashSet<>();
      for (RecordedFrame f : frames) {
        String n = name(f);
        if (seen.add(n)) {
          total.merge(n, 1, Integer::sum);
        }
      }
    }
    System.out.printf("%s: %,d execution samples, %,d native samples%n", file, samples, nativeSamples);
    table("CPU samples by thread", byThread, samples, top);
    table("CPU samples by top frame (self)", self, samples, top);
    table("CPU samples by nearest dev.herald frame (Herald code on the stack, self or calling)", selfHerald, samples, top);
    table("CPU samples by frame anywhere on the stack (total)", total, samples, top);
    table("Native samples by thread (blocked in native code: socket reads = waiting on the database)", nativeByThread,
        nativeSamples, top);
    table("Native samples by thread and nearest non-JDK frame", nativeTop, nativeSamples, top);
    System.out.printf("%nAllocation: %,d MB sampled (estimated); GC: %d collections, pauses %d ms in all, longest %d ms%n",
        allocTotal >> 20, gcs, gcPauseTotal, gcPauseMax);
    tableMb("Allocation by thread (MB)", allocByThread, allocTotal, top);
    tableMb("Allocation by class and nearest non-JDK frame (<- nearest Herald frame) (MB)", allocByFrame, allocTotal, top);
  }

  private static void tableMb(String title, Map<String, Long> bytes, long all, int top) {
    Table t = new Table(title, "what", "MB", "%");
    bytes.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(top)
        .forEach(e -> t.row(e.getKey(), e.getValue() / 1048576.0, 100.0 * e.getValue() / Math.max(1, all)));
    t.print();
  }

  /** Thread names without their number: herald-handler-12 and herald-handler-13 count together. */
  private static String threadGroup(String name) {
    return name.replaceAll("-\\d+$", "-*").replaceAll("#\\d+", "#*");
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static String firstHerald(List<RecordedFrame> frames) {
    for (RecordedFrame f : frames) {
      String n = name(f);
      if (n.startsWith("dev.herald.") && !n.startsWith("dev.herald.bench.")) {
        return n;
      }
    }
    return null;
  }

  private static String firstInteresting(List<RecordedFrame> frames) {
    for (RecordedFrame f : frames) {
      String n = name(f);
      if (!n.startsWith("java.") && !n.startsWith("jdk.") && !n.startsWith("sun.")) {
        return n;
      }
    }
    return frames.isEmpty() ? "?" : name(frames.getFirst());
  }

  private static void table(String title, Map<String, Integer> counts, int all, int top) {
    Table t = new Table(title, "what", "samples", "%");
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(top)
        .forEach(e -> t.row(e.getKey(), e.getValue(), 100.0 * e.getValue() / Math.max(1, all)));
    t.print();
  }
}
