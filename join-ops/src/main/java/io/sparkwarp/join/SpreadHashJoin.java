package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchRange;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.PeerBatchCopy;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.kernels.partition.PartitionedBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;
import java.util.stream.IntStream;

/**
 * One equi-join run over several devices of one kind when it is too large for one: both sides are split into one
 * hash part per device by their keys (murmur3 with {@link #SEED}, not Spark's 42: a shuffled join's partition shares
 * its seed-42 hash modulo the partition count), each device builds a {@link DeviceHashJoin} over its build part and
 * probes its stream parts, all devices at once (a thread each, on its own stream). The inputs are resident on a home
 * device (a task's partition: the output comes back home by peer copies) or already spread, a share on each device
 * (all to all; the output stays where it was made). Output order differs from a single device's; Spark does not
 * order join output.
 *
 * <p>The parts move by pulls: each device groups its share by part in one batch, left where it is, and device d
 * concatenates part d's row ranges of every device's grouped batch into one batch of its own, reading them across
 * the link (NVLink where present). So each row is read once and written once on its way, with no slice, copy and
 * concatenation passes between, and no device's stream waits for another's: the devices must read each other's
 * memory ({@link Backend#readsPeerMemory}).
 *
 * <p>Every row with a given key lands on the same device, on both sides (a null key hashes to one device too), so
 * each device's join is exact on its own: build-side outer, semi and anti rows come from each device's {@link
 * DeviceHashJoin#finish}.
 *
 * <p>Skew (a heavy key makes its part heavy): a part larger than {@code splitBytes}, or than a quarter of its
 * device's free memory (its copy, table, pairs and gathered output take several times its bytes), is split over all
 * devices where the join type allows it, in one of two ways. A heavy build part has its build rows dealt over the
 * devices, each device's grouped rows of the part cut into even runs, one a device (each builds its table over its
 * own part and its run of the heavy one), and every stream row of that part goes to every device: valid where no
 * stream row's output depends on all of its matches (inner joins, outer joins on the build side, semi and anti joins
 * building the left side; not {@link DeviceHashJoin#tracksStreamMatches}). A heavy stream part (in one stream batch)
 * has its stream rows dealt the same way, each device getting a copy of that part's build rows (once, on the first
 * split, and only where every device has room for it: twice its bytes with the table): valid where no build row's
 * output depends on which stream rows it meets (inner joins, outer joins on the stream side, semi and anti joins
 * streaming the left side; not {@link DeviceHashJoin#tracksBuildMatches}). Otherwise (a full outer join; a heavy
 * build part of a stream-side outer join, a heavy stream part of a build-side one) the part stays whole and may run
 * out of memory as on one device, the error naming that device.
 *
 * <p>Allocations on every device are charged to the task of the thread that made the join. Not thread-safe, like
 * {@link DeviceHashJoin}: one task calls it.
 */
public final class SpreadHashJoin implements StreamedJoin {
  /** The murmur3 seed rows are spread by. */
  public static final int SEED = 0x5eed;

  private final List<Backend> devices;
  private final int home;
  /** Each device's stream: the caller's where it gave one (output batches are made there), else the join's own. */
  private final List<DeviceStream> streams = new ArrayList<>();
  /** The streams the join made, and closes. */
  private final List<DeviceStream> ownStreams = new ArrayList<>();
  private final JoinType type;
  private final JoinType.Side buildSide;
  private final JoinCondition condition;
  private final List<DeviceType> streamTypes;
  private final int chunkPairs;
  private final List<Boolean> nullSafe;
  /** How the build side's rows and keys travel as one batch. */
  private final SpreadLayout buildLayout;
  private final long splitBytes;
  /** Whether a heavy stream part may be dealt over the devices (see the class comment). */
  private final boolean streamSplittable;
  /** Whether a heavy build part may be dealt over the devices (see the class comment). */
  private final boolean buildSplittable;
  /** buildSplit[d]: part d's build rows were dealt over the devices, so its stream rows go to every device. */
  private final boolean[] buildSplit;
  /** The task allocations are charged to, on the worker threads too. */
  private final long task;
  private final ExecutorService workers;
  /** parts.get(d): device d's own build part. */
  private final List<SpreadPart> parts = new ArrayList<>();
  /** replicas.get(e).get(d): build part d copied to device e, for the stream rows of part d dealt to e. */
  private final List<Map<Integer, SpreadPart>> replicas = new ArrayList<>();

  /**
   * Partitions and distributes {@code build} (resident on {@code devices.get(home)}, left open: the caller's) and
   * builds each device's table. Arguments as {@link DeviceHashJoin}'s, and:
   *
   * @param devices backends of one kind, one per device
   * @param home the device holding the build side and the stream batches, where the output is delivered
   * @param splitBytes stream parts above this many bytes are split where the join type allows
   * @param homeStream the caller's stream on the home device
   */
  public SpreadHashJoin(List<Backend> devices, int home, DeviceBatch build, JoinKeys buildKeys, JoinType type,
      JoinType.Side buildSide, JoinCondition condition, List<DeviceType> streamTypes, int chunkPairs, long splitBytes,
      DeviceStream homeStream) {
    this(devices, home, atHome(devices.size(), home, build), atHome(devices.size(), home, buildKeys), type, buildSide,
        condition, streamTypes, chunkPairs, splitBytes, atHome(devices.size(), home, homeStream));
  }

  /**
   * As the home constructor, for a build side already spread: {@code buildShares.get(d)}, with its keys, is resident
   * on device d (null where a device holds none; the shares stay the caller's).
   *
   * @param callerStreams the caller's stream on each device, null where the join is to make its own: each share's
   *     producing work is issued there or finished, and output batches left on a device ({@link #joinShares}) are
   *     made on its stream, so the caller must give one for each device it reads output on
   */
  public SpreadHashJoin(List<Backend> devices, int home, List<DeviceBatch> buildShares, List<JoinKeys> buildKeys,
      JoinType type, JoinType.Side buildSide, JoinCondition condition, List<DeviceType> streamTypes, int chunkPairs,
      long splitBytes, List<DeviceStream> callerStreams) {
    if (callerStreams.size() != devices.size() || callerStreams.get(home) == null) {
      throw new IllegalArgumentException("a join over " + devices.size() + " devices needs that many streams, the "
          + "home device's given");
    }
    if (home < 0 || home >= devices.size()) {
      throw new IllegalArgumentException("home device " + home + " of " + devices.size());
    }
    checkShares(devices, buildShares, buildKeys);
    for (Backend device : devices) {
      if (device.kind() != devices.get(home).kind()) {
        throw new IllegalArgumentException("a join spread over devices of kinds " + devices.get(home).kind()
            + " and " + device.kind());
      }
    }
    if (!Backends.readEachOther(devices)) {
      throw new IllegalArgumentException("a join spread over devices that do not all read each other's memory: "
          + devices.stream().map(Backend::description).toList());
    }
    this.devices = List.copyOf(devices);
    this.home = home;
    this.type = type;
    this.buildSide = buildSide;
    this.condition = condition;
    this.streamTypes = List.copyOf(streamTypes);
    this.chunkPairs = chunkPairs;
    int first = firstShare(buildShares);
    this.nullSafe = buildKeys.get(first).nullSafe();
    this.buildLayout = SpreadLayout.common(buildShares, buildKeys);
    this.splitBytes = splitBytes;
    this.streamSplittable = devices.size() > 1 && !DeviceHashJoin.tracksBuildMatches(type, buildSide);
    this.buildSplittable = devices.size() > 1 && !DeviceHashJoin.tracksStreamMatches(type, buildSide);
    this.buildSplit = new boolean[devices.size()];
    this.task = DeviceMemory.currentTask();
    this.workers = Executors.newFixedThreadPool(devices.size(), r -> {
      Thread thread = new Thread(r, "sparkwarp-spread-join");
      thread.setDaemon(true);
      return thread;
    });
    try {
      for (int d = 0; d < devices.size(); d++) {
        DeviceStream given = callerStreams.get(d);
        if (given == null) {
          given = devices.get(d).newStream();
          ownStreams.add(given);
        }
        streams.add(given);
        replicas.add(new HashMap<>());
      }
      List<Scattered> scattered = scatterShares(buildShares, buildKeys, buildLayout);
      try {
        List<List<BatchRange>> inputs = buildInputs(scattered);
        parts.addAll(onEachDevice(d -> new SpreadPart(devices.get(d), pull(d, inputs.get(d)), buildLayout,
            nullSafe, type, buildSide, condition, streamTypes, chunkPairs, streams.get(d)), SpreadPart::close));
      } finally {
        Closeables.closeAll(scattered);  // every device has read its ranges
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** {@inheritDoc} The stream batch, its keys and the output batches are on the home device. */
  @Override
  public void join(DeviceBatch streamBatch, JoinKeys streamKeys, Consumer<DeviceBatch> out) {
    if (streamBatch.rowCount() == 0) return;
    List<List<DeviceBatch>> outputs = probeShares(atHome(devices.size(), home, streamBatch),
        atHome(devices.size(), home, streamKeys), true);
    deliver(outputs, (batch, device) -> out.accept(batch));
  }

  /**
   * Joins a stream batch already spread: {@code shares.get(d)}, with its keys, on device d (null where a device holds
   * none; issued on the join's stream there or finished; left open, the caller's). Each output batch goes to {@code
   * out} with the device it is on, where it was made, on the stream the caller gave for it.
   */
  public void joinShares(List<DeviceBatch> shares, List<JoinKeys> keys, ObjIntConsumer<DeviceBatch> out) {
    checkShares(devices, shares, keys);
    deliver(probeShares(shares, keys, false), out);
  }

  /** The stream shares split, routed and probed; each device's output, at home or where it was made. */
  private List<List<DeviceBatch>> probeShares(List<DeviceBatch> shares, List<JoinKeys> keys, boolean outputHome) {
    SpreadLayout layout = SpreadLayout.common(shares, keys);
    List<Scattered> scattered = scatterShares(shares, keys, layout);
    try {
      List<Map<Integer, List<BatchRange>>> routes = route(scattered);
      return onEachDevice(e -> probe(e, routes.get(e), layout, outputHome), Closeables::closeAll);
    } finally {
      Closeables.closeAll(scattered);  // every device has read its ranges
    }
  }

  /**
   * Where each stream part's rows are probed (see the class comment): for each device, the ranges it probes against
   * each table there, by the table's part (the device's own, whose table also holds its run of every build-split
   * part, or a stream-split part's copy). Copies a stream-split part's build rows where they are not yet.
   */
  private List<Map<Integer, List<BatchRange>>> route(List<Scattered> scattered) {
    int count = devices.size();
    List<Map<Integer, List<BatchRange>>> routes = new ArrayList<>();
    for (int e = 0; e < count; e++) routes.add(new TreeMap<>());
    for (int d = 0; d < count; d++) {
      boolean dealt = !buildSplit[d] && splits(d, partBytes(scattered, d));
      if (dealt) replicate(d);
      for (Scattered share : scattered) {
        BatchRange part = share == null ? null : share.parts().get(d);
        if (part == null || part.rows() == 0) continue;
        if (buildSplit[d]) {
          for (int e = 0; e < count; e++) routes.get(e).computeIfAbsent(e, t -> new ArrayList<>()).add(part);
        } else if (dealt) {
          List<BatchRange> runs = deal(share.device(), part);
          for (int e = 0; e < count; e++) routes.get(e).computeIfAbsent(d, t -> new ArrayList<>()).add(runs.get(e));
        } else {
          routes.get(d).computeIfAbsent(d, t -> new ArrayList<>()).add(part);
        }
      }
    }
    return routes;
  }

  /** {@inheritDoc} Each device's, brought home. */
  @Override
  public void finish(Consumer<DeviceBatch> out) {
    deliver(onEachDevice(e -> {
      List<DeviceBatch> result = new ArrayList<>();
      try {
        parts.get(e).join().finish(b -> result.add(move(e, home, b)));
        return result;
      } catch (RuntimeException failure) {
        Closeables.closeAll(result);
        throw failure;
      }
    }, Closeables::closeAll), (batch, device) -> out.accept(batch));
  }

  /** What the probes of every device did so far. */
  @Override
  public ProbeMetrics metrics() {
    ProbeMetrics sum = ProbeMetrics.NONE;
    for (SpreadPart part : parts) sum = sum.plus(part.join().metrics());
    for (Map<Integer, SpreadPart> copies : replicas) {
      for (SpreadPart part : copies.values()) sum = sum.plus(part.join().metrics());
    }
    return sum;
  }

  /**
   * How many parts were split for skew: their build rows dealt over the devices, or copied to every device for
   * their stream rows.
   */
  public int splitParts() {
    int dealt = 0;
    for (boolean split : buildSplit) dealt += split ? 1 : 0;
    return dealt + replicas.stream().mapToInt(Map::size).max().orElse(0);
  }

  @Override
  public void close() {
    try {
      List<AutoCloseable> all = new ArrayList<>(parts);
      replicas.forEach(copies -> all.addAll(copies.values()));
      parts.clear();
      replicas.forEach(Map::clear);
      Closeables.closeAll(all);
    } finally {
      Closeables.closeAll(ownStreams);
      workers.shutdownNow();
    }
  }

  /**
   * A share's rows and keys grouped by part on its device, and each part's rows there; it stays until every device
   * has read the ranges it was routed.
   */
  private record Scattered(int device, PartitionedBatch grouped, List<BatchRange> parts) implements AutoCloseable {
    @Override
    public void close() {
      grouped.close();
    }
  }

  /**
   * Device e's stream rows pulled there and probed, a batch for each table ({@link #route}); returns the output,
   * at home or on e.
   */
  private List<DeviceBatch> probe(int e, Map<Integer, List<BatchRange>> byTable, SpreadLayout layout,
      boolean outputHome) {
    List<DeviceBatch> result = new ArrayList<>();
    try {
      for (Map.Entry<Integer, List<BatchRange>> entry : byTable.entrySet()) {
        int table = entry.getKey();
        SpreadPart target = table == e ? parts.get(e) : replicas.get(e).get(table);
        try (DeviceBatch rows = pull(e, entry.getValue())) {
          target.join().join(layout.rows(rows), layout.keys(rows, nullSafe),
              b -> result.add(outputHome ? move(e, home, b) : b));
        }
      }
      return result;
    } catch (RuntimeException failure) {
      Closeables.closeAll(result);
      throw failure;
    }
  }

  /** Each share scattered on its own device, all at once ({@link #scatter}); null for a device without one. */
  private List<Scattered> scatterShares(List<DeviceBatch> shares, List<JoinKeys> keys, SpreadLayout layout) {
    return onEachDevice(s -> shares.get(s) == null ? null : scatter(s, shares.get(s), keys.get(s), layout),
        scattered -> {
          if (scattered != null) scattered.close();
        });
  }

  /**
   * The batch's rows and keys combined by {@code layout} and grouped by the keys' hash part, on device {@code s},
   * where the batch is, finished there before this returns (the other devices read it). The batch and keys stay the
   * caller's.
   */
  private Scattered scatter(int s, DeviceBatch batch, JoinKeys keys, SpreadLayout layout) {
    // the view shares the batch's and the keys' columns: it is not closed
    DeviceBatch rowsAndKeys = layout.combine(batch, keys);
    PartitionedBatch grouped = PartitionedBatch.hash(devices.get(s), rowsAndKeys, layout.keyColumns(),
        devices.size(), SEED, streams.get(s));
    try {
      int[] lengths = new int[devices.size()];
      for (int d = 0; d < lengths.length; d++) lengths[d] = grouped.rows(d);
      List<BatchRange> parts = BatchSlicer.ranges(devices.get(s), grouped.batch(),
          Arrays.copyOf(grouped.starts(), lengths.length), lengths, streams.get(s));
      streams.get(s).synchronize();
      return new Scattered(s, grouped, parts);
    } catch (RuntimeException e) {
      grouped.close();
      throw e;
    }
  }

  /**
   * A split part's rows on device s (a range of its grouped batch) cut into one even run per device: that device's
   * share of the part. No bytes move; only the runs' string bounds are read back.
   */
  private List<BatchRange> deal(int s, BatchRange part) {
    int count = devices.size();
    int[] starts = new int[count];
    int[] lengths = new int[count];
    for (int e = 0; e < count; e++) {
      starts[e] = part.from() + (int) ((long) part.rows() * e / count);
      lengths[e] = part.from() + (int) ((long) part.rows() * (e + 1) / count) - starts[e];
    }
    return BatchSlicer.ranges(devices.get(s), part.batch(), starts, lengths, streams.get(s));
  }

  /** Device memory the rows of part d of every share take. */
  private static long partBytes(List<Scattered> scattered, int d) {
    long bytes = 0;
    for (Scattered share : scattered) bytes += share == null ? 0 : share.parts().get(d).deviceBytes();
    return bytes;
  }

  /**
   * Which build parts are split (see the class comment), and the ranges each device builds its table from: its own
   * part's rows of every share, and its run of each split part's.
   */
  private List<List<BatchRange>> buildInputs(List<Scattered> scattered) {
    int count = devices.size();
    for (int d = 0; d < count; d++) {
      long bytes = partBytes(scattered, d);
      buildSplit[d] = buildSplittable && heavy(d, bytes) && everyDeviceFits(2 * bytes / count);
    }
    List<List<BatchRange>> inputs = new ArrayList<>();
    for (int e = 0; e < count; e++) inputs.add(new ArrayList<>());
    for (Scattered share : scattered) {
      if (share == null) continue;
      for (int d = 0; d < count; d++) {
        BatchRange part = share.parts().get(d);
        if (!buildSplit[d]) {
          inputs.get(d).add(part);
          continue;
        }
        List<BatchRange> runs = deal(share.device(), part);
        for (int e = 0; e < count; e++) inputs.get(e).add(runs.get(e));
      }
    }
    return inputs;
  }

  /** Whether a part of {@code bytes} is too heavy for device d (see the class comment). */
  private boolean heavy(int d, long bytes) {
    return bytes > Math.min(splitBytes, free(d) / 4);
  }

  /** Whether every device has {@code bytes} of memory free. */
  private boolean everyDeviceFits(long bytes) {
    return IntStream.range(0, devices.size()).allMatch(e -> free(e) >= bytes);
  }

  /** Whether stream part d, of {@code bytes}, is split over the devices (see the class comment). */
  private boolean splits(int d, long bytes) {
    if (!streamSplittable || !heavy(d, bytes)) return false;
    long copyBytes = 2 * parts.get(d).rowsAndKeys().deviceBytes();  // the build rows and their table
    for (int e = 0; e < devices.size(); e++) {
      if (e != d && !replicas.get(e).containsKey(d) && free(e) < copyBytes) return false;
    }
    return true;
  }

  /** Device memory device d may still allocate under its limit. */
  private long free(int d) {
    DeviceMemory memory = devices.get(d).deviceMemory();
    return memory.limit() - memory.bytesInUse();
  }

  /** Copies build part d to every other device that lacks it, and builds its table there. */
  private void replicate(int d) {
    for (int e = 0; e < devices.size(); e++) {
      if (e == d || replicas.get(e).containsKey(d)) continue;
      DeviceBatch copy = pull(e, List.of(BatchRange.whole(parts.get(d).rowsAndKeys())));
      replicas.get(e).put(d, new SpreadPart(devices.get(e), copy, buildLayout, nullSafe, type, buildSide, condition,
          streamTypes, chunkPairs, streams.get(e)));
    }
  }

  /**
   * {@code ranges} (rows of finished batches on any of the devices) concatenated into one new batch on device e, read
   * across the link where they lie on another device; finished before this returns, so their owners may free them.
   */
  private DeviceBatch pull(int e, List<BatchRange> ranges) {
    try {
      return BatchConcatenator.concatRanges(devices.get(e), ranges, streams.get(e));
    } finally {
      streams.get(e).synchronize();
    }
  }

  /** A batch on device {@code from} moved to device {@code to} (the same batch when they are one); closes it else. */
  private DeviceBatch move(int from, int to, DeviceBatch batch) {
    if (from == to) return batch;
    try (batch) {
      return PeerBatchCopy.copy(devices.get(from), batch, streams.get(from), devices.get(to), streams.get(to));
    }
  }

  /** A list with {@code value} at {@code home} and nulls elsewhere: inputs all on the home device. */
  private static <T> List<T> atHome(int count, int home, T value) {
    List<T> list = new ArrayList<>(Collections.nCopies(count, null));
    list.set(home, value);
    return list;
  }

  /** The index of the first share present. */
  private static int firstShare(List<DeviceBatch> shares) {
    for (int d = 0; d < shares.size(); d++) {
      if (shares.get(d) != null) return d;
    }
    throw new IllegalArgumentException("no device holds a share of the input");
  }

  private static void checkShares(List<Backend> devices, List<DeviceBatch> shares, List<JoinKeys> keys) {
    if (shares.size() != devices.size() || keys.size() != devices.size()) {
      throw new IllegalArgumentException(shares.size() + " shares and " + keys.size() + " keys for " + devices.size()
          + " devices");
    }
    firstShare(shares);
    for (int d = 0; d < shares.size(); d++) {
      if ((shares.get(d) == null) != (keys.get(d) == null)) {
        throw new IllegalArgumentException("device " + d + " has a share without keys, or keys without a share");
      }
    }
  }

  /**
   * Runs {@code work} for every device at once, each on a thread charged to the join's task, and returns the results
   * in device order. When any fails, the others' results are discarded and the first failure is thrown.
   */
  private <T> List<T> onEachDevice(IntFunction<T> work, Consumer<T> discard) {
    List<Future<T>> futures = new ArrayList<>();
    for (int d = 0; d < devices.size(); d++) {
      int device = d;
      futures.add(workers.submit(() -> {
        try (DeviceMemory.TaskScope scope = devices.get(device).deviceMemory().enterTask(task)) {
          return work.apply(device);
        }
      }));
    }
    List<T> results = new ArrayList<>();
    RuntimeException failure = null;
    boolean interrupted = false;
    for (Future<T> future : futures) {
      // every worker is waited for, even when this thread is interrupted (a task killed): none may still use the
      // parts or the streams when the caller goes on to close them
      while (true) {
        try {
          results.add(future.get());
          break;
        } catch (ExecutionException e) {
          RuntimeException cause = e.getCause() instanceof RuntimeException re ? re
              : new RuntimeException(e.getCause());
          if (failure == null) failure = cause;
          else failure.addSuppressed(cause);
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      if (failure == null) failure = new IllegalStateException("interrupted while the devices joined");
    }
    if (failure != null) {
      results.forEach(discard);
      throw failure;
    }
    return results;
  }

  /** Hands each device's output batches to {@code out} with the device's index; closes the rest if it throws. */
  private static void deliver(List<List<DeviceBatch>> outputs, ObjIntConsumer<DeviceBatch> out) {
    for (int i = 0; i < outputs.size(); i++) {
      for (int j = 0; j < outputs.get(i).size(); j++) {
        try {
          out.accept(outputs.get(i).get(j), i);
        } catch (RuntimeException e) {
          outputs.get(i).subList(j + 1, outputs.get(i).size()).forEach(DeviceBatch::close);
          outputs.subList(i + 1, outputs.size()).forEach(Closeables::closeAll);
          throw e;
        }
      }
    }
  }
}
