package dev.herald.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the results were measured on: machine and JVM. */
final class Env {
  private Env() {}

  static Map<String, Object> machine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cores", Runtime.getRuntime().availableProcessors());
    long memory = -1;
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      memory = os.getTotalMemorySize();
    }
    m.put("memory_bytes", memory);
    m.put("memory_gb", Math.round(memory / 1e8) / 10.0);
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("arch", System.getProperty("os.arch"));
    m.put("cpu", cpuModel());
    m.put("load_average", Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0);
    return m;
  }

  static Map<String, Object> jvm() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("version", System.getProperty("java.version"));
    m.put("vendor", System.getProperty("java.vendor"));
    m.put("vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    m.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
    List<String> gcs = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcs.add(gc.getName());
    }
    m.put("gc", gcs);
    m.put("args", ManagementFactory.getRuntimeMXBean().getInputArguments());
    return m;
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return "unknown";
  }

  /** Heap in use after a full collection, in bytes. */
  static long heapAfterGc() {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      best = Math.min(best, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return best;
  }
}
