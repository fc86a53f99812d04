package io.sparkwarp.plugin.shuffle;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.MapOutputTracker;
import org.apache.spark.MapOutputTrackerMaster;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.BlockManagerId$;

/**
 * The GPU shuffles' map output kept in device memory by an executor that is also the driver (local mode, one device or
 * several that read each other's memory), so the next stage reads it where it was written, a task on another device
 * over the link between them: no download, serialisation, compression, file or upload. Spark's scheduler still gets
 * each map task's real partition sizes, so adaptive execution plans as it would. A map task whose output does not fit
 * the budget goes through Spark's shuffle instead ({@link #wroteThroughSpark}); readers take each map task's output
 * from wherever it went.
 *
 * <p>Output is freed when Spark unregisters its shuffle (the ContextCleaner found it unreachable; {@link #sweep}),
 * or, once the SQL execution that made it has ended, when newer output needs its room: a later read of evicted
 * output reports a lost map output, and Spark's scheduler recomputes it, as after a lost executor. The map statuses
 * of kept output name a location of their own ({@link #location}), so that this loss unregisters the kept output
 * only: a fetch failure at the executor's own block manager would make Spark drop that block manager, with the
 * task results and broadcasts it holds. Output being read is never freed. Thread-safe.
 */
public final class DeviceShuffleStore {
  private static final DeviceShuffleStore INSTANCE = new DeviceShuffleStore();
  /** The executor id of {@link #location}: no executor of Spark's has it. */
  static final String LOCATION_EXECUTOR = "sparkwarp-device-shuffle";

  /** One shuffle's map outputs on this executor. */
  private static final class Shuffle {
    final Map<Long, DeviceMapOutput> onDevice = new HashMap<>();
    final Set<Long> throughSpark = new HashSet<>();
    int readers;
    long bytes;
  }

  /** In the order they were first written to: the oldest are evicted first. */
  private final Map<Integer, Shuffle> shuffles = new LinkedHashMap<>();
  /** The SQL execution each shuffle was planned in, while that may matter. */
  private final Map<Integer, Long> executionOf = new HashMap<>();
  private final Set<Long> endedExecutions = new HashSet<>();
  private long bytes;
  private SparkContext listening;
  private boolean shutdownHooked;

  private DeviceShuffleStore() {}

  public static DeviceShuffleStore get() {
    return INSTANCE;
  }

  /** Where the map statuses of output kept here say it is: beside the executor's block manager, not it. */
  public static BlockManagerId location(BlockManagerId blockManager) {
    return BlockManagerId$.MODULE$.apply(LOCATION_EXECUTOR, blockManager.host(), blockManager.port(),
        blockManager.topologyInfo());
  }

  /**
   * Notes that {@code shuffleId} was planned in SQL execution {@code executionId} (null when outside one), so its
   * output may be evicted once that execution ends; on the driver.
   */
  public synchronized void planned(SparkContext context, int shuffleId, String executionId) {
    if (executionId == null) return;
    if (listening != context) {
      context.addSparkListener(new SparkListener() {
        @Override
        public void onOtherEvent(SparkListenerEvent event) {
          if (event instanceof SparkListenerSQLExecutionEnd end) executionEnded(end.executionId());
        }
      });
      listening = context;
    }
    executionOf.put(shuffleId, Long.parseLong(executionId));
  }

  synchronized void executionEnded(long executionId) {
    if (executionOf.containsValue(executionId)) endedExecutions.add(executionId);
  }

  /** Bytes that {@link #reserve} could find under {@code budget} now, evicting what it may. */
  public synchronized long room(long budget) {
    long evictable = evictable().stream().mapToLong(id -> shuffles.get(id).bytes).sum();
    return budget - bytes + evictable;
  }

  /**
   * Reserves {@code size} bytes if they fit {@code budget} beside what is held, evicting ended executions' output
   * (oldest first) to make room; returns whether they were reserved.
   */
  public synchronized boolean reserve(long size, long budget) {
    if (size > room(budget)) return false;
    for (int id : evictable()) {
      if (bytes + size <= budget) break;
      evict(shuffles.get(id));
    }
    bytes += size;
    return true;
  }

  /** The shuffles whose output may go: their execution has ended and nothing reads them; oldest first. */
  private List<Integer> evictable() {
    List<Integer> ids = new ArrayList<>();
    for (Map.Entry<Integer, Shuffle> e : shuffles.entrySet()) {
      Long execution = executionOf.get(e.getKey());
      if (e.getValue().readers == 0 && e.getValue().bytes > 0 && execution != null
          && endedExecutions.contains(execution)) {
        ids.add(e.getKey());
      }
    }
    return ids;
  }

  /** Keeps map task {@code mapId}'s output, whose bytes were reserved. */
  public synchronized void put(int shuffleId, long mapId, DeviceMapOutput output) {
    if (!shutdownHooked) {  // device memory goes before the backend closes
      GpuRuntime.get().onShutdown(this::clear);
      shutdownHooked = true;
    }
    Shuffle shuffle = shuffles.computeIfAbsent(shuffleId, id -> new Shuffle());
    DeviceMapOutput replaced = shuffle.onDevice.put(mapId, output);
    shuffle.bytes += output.deviceBytes();
    if (replaced != null) free(shuffle, replaced);  // (a task attempt id is never reused)
  }

  /** Gives back a reservation that was not used. */
  public synchronized void unreserve(long size) {
    bytes -= size;
  }

  /** Notes that map task {@code mapId} wrote its output through Spark's shuffle. */
  public synchronized void wroteThroughSpark(int shuffleId, long mapId) {
    shuffles.computeIfAbsent(shuffleId, id -> new Shuffle()).throughSpark.add(mapId);
  }

  /** Read access to {@code shuffleId}'s output until closed; output being read is not evicted. */
  public synchronized Reading open(int shuffleId) {
    Shuffle shuffle = shuffles.computeIfAbsent(shuffleId, id -> new Shuffle());
    shuffle.readers++;
    return new Reading(shuffleId, shuffle);
  }

  /** Where a reader finds each map task's output. */
  public final class Reading implements AutoCloseable {
    private final int shuffleId;
    private final Shuffle shuffle;
    private boolean closed;

    private Reading(int shuffleId, Shuffle shuffle) {
      this.shuffleId = shuffleId;
      this.shuffle = shuffle;
    }

    /** Map task {@code mapId}'s output on the device; null if it went through Spark or was evicted. */
    public DeviceMapOutput onDevice(long mapId) {
      synchronized (DeviceShuffleStore.this) {
        return shuffle.onDevice.get(mapId);
      }
    }

    public boolean throughSpark(long mapId) {
      synchronized (DeviceShuffleStore.this) {
        return shuffle.throughSpark.contains(mapId);
      }
    }

    public int shuffleId() {
      return shuffleId;
    }

    @Override
    public void close() {
      synchronized (DeviceShuffleStore.this) {
        if (!closed) shuffle.readers--;
        closed = true;
      }
    }
  }

  /**
   * Frees the output of shuffles Spark has unregistered (and forgets finished executions); the executor plugin calls
   * it as each task ends.
   */
  public synchronized void sweep() {
    MapOutputTracker tracker = SparkEnv.get() == null ? null : SparkEnv.get().mapOutputTracker();
    if (!(tracker instanceof MapOutputTrackerMaster master)) return;
    shuffles.entrySet().removeIf(e -> {
      if (master.containsShuffle(e.getKey()) || e.getValue().readers > 0) return false;
      evict(e.getValue());
      return true;
    });
    executionOf.keySet().removeIf(id -> !shuffles.containsKey(id) && !master.containsShuffle(id)
        && endedExecutions.contains(executionOf.get(id)));
    endedExecutions.retainAll(executionOf.values());
  }

  /** Device bytes held for {@code shuffleId}: for diagnostics and tests. */
  public synchronized long deviceBytes(int shuffleId) {
    Shuffle shuffle = shuffles.get(shuffleId);
    return shuffle == null ? 0 : shuffle.bytes;
  }

  /** The devices holding {@code shuffleId}'s output: for diagnostics and tests. */
  public synchronized Set<Backend> devices(int shuffleId) {
    Shuffle shuffle = shuffles.get(shuffleId);
    Set<Backend> devices = new HashSet<>();
    if (shuffle != null) shuffle.onDevice.values().forEach(output -> devices.add(output.backend()));
    return devices;
  }

  /** Device bytes held for every shuffle. */
  public synchronized long deviceBytes() {
    return bytes;
  }

  /** Frees all output and forgets every shuffle: the executor stops. */
  public synchronized void clear() {
    shuffles.values().forEach(this::evict);
    shuffles.clear();
    executionOf.clear();
    endedExecutions.clear();
    listening = null;
    shutdownHooked = false;
  }

  private void evict(Shuffle shuffle) {
    for (DeviceMapOutput output : List.copyOf(shuffle.onDevice.values())) free(shuffle, output);
    shuffle.onDevice.clear();
  }

  private void free(Shuffle shuffle, DeviceMapOutput output) {
    output.close();
    shuffle.bytes -= output.deviceBytes();
    bytes -= output.deviceBytes();
  }
}
