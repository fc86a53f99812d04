package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.PeerBatchCopy;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.kernels.partition.PartitionedBatch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * its seed-42 hash modulo the partition count), part d moves to device d by peer copies, each device builds a {@link
 * DeviceHashJoin} over its build part and probes its stream parts, all devices at once (a thread each, on its own
 * stream). The inputs are resident on a home device (a task's partition: the output comes back home by peer copies)
 * or already spread, a share on each device (each device splits its share and sends the parts to the others, all to
 * all; the output stays where it was made). Output order differs from a single device's; Spark does not order join
 * output.
 *
 * <p>Every row with a given key lands on the same device, on both sides (a null key hashes to one device too), so
 * each device's join is exact on its own: build-side outer, semi and anti rows come from each device's {@link
 * DeviceHashJoin#finish}.
 *
 * <p>Skew (a heavy key makes its part heavy): a part larger than {@code splitBytes}, or than a quarter of its
 * device's free memory (its copy, table, pairs and gathered output take several times its bytes), is split over all
 * devices where the join type allows it, in one of two ways. A heavy build part has its build rows dealt round-robin
 * over the devices (each builds its table over its own part and its piece of the heavy one), and every stream row of
 * that part goes to every device: valid where no stream row's output depends on all of its matches (inner joins,
 * outer joins on the build side, semi and anti joins building the left side; not {@link
 * DeviceHashJoin#tracksStreamMatches}). A heavy stream part (in one stream batch) has its stream rows dealt
 * round-robin over the devices, each of which gets a copy of that part's build rows (once, on the first split, and
 * only where every device has room for it: twice its bytes with the table): valid where no build row's output
 * depends on which stream rows it meets (inner joins, outer joins on the stream side, semi and anti joins streaming
 * the left side; not {@link DeviceHashJoin#tracksBuildMatches}). Otherwise (a full outer join; a heavy build part
 * of a stream-side outer join, a heavy stream part of a build-side one) the part stays whole and may run out of
 * memory as on one device, the error naming that device.
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
      List<List<DeviceBatch>> slices = scatterShares(buildShares, buildKeys, buildLayout);
      List<List<Piece>> pieces = new ArrayList<>();
      try {
        pieces.addAll(buildPieces(slices));
        parts.addAll(onEachDevice(d -> new SpreadPart(devices.get(d), gather(d, pieces.get(d)), buildLayout,
            nullSafe, type, buildSide, condition, streamTypes, chunkPairs, streams.get(d)), SpreadPart::close));
      } finally {
        // each gather took its pieces; these are left by a failure
        closeAll(slices);
        pieces.forEach(list -> list.forEach(p -> p.rowsAndKeys().close()));
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

  /**
   * The stream shares split, moved and probed; each device's output, at home or where it was made. A slice of a
   * build-split part goes to every device, shared (it stays in {@code slices} until all have probed it).
   */
  private List<List<DeviceBatch>> probeShares(List<DeviceBatch> shares, List<JoinKeys> keys, boolean outputHome) {
    SpreadLayout layout = SpreadLayout.common(shares, keys);
    List<List<Piece>> pieces = new ArrayList<>();
    for (int e = 0; e < devices.size(); e++) pieces.add(new ArrayList<>());
    List<List<DeviceBatch>> slices = scatterShares(shares, keys, layout);
    try {
      for (int s = 0; s < slices.size(); s++) {
        if (slices.get(s) == null) continue;
        for (int d = 0; d < devices.size(); d++) {
          DeviceBatch slice = slices.get(s).get(d);
          if (slice.rowCount() == 0) continue;
          if (buildSplit[d]) {
            for (int e = 0; e < devices.size(); e++) pieces.get(e).add(new Piece(d, s, slice, true));
          } else if (splits(d, slice)) {
            slices.get(s).set(d, null);
            List<DeviceBatch> dealt = deal(s, slice);
            for (int e = 0; e < dealt.size(); e++) pieces.get(e).add(new Piece(d, s, dealt.get(e), false));
            replicate(d);
          } else {
            pieces.get(d).add(new Piece(d, s, slice, false));
            slices.get(s).set(d, null);  // the piece owns it now
          }
        }
      }
      return onEachDevice(e -> probe(e, pieces.get(e), layout, outputHome), Closeables::closeAll);
    } catch (RuntimeException e) {
      pieces.forEach(list -> list.forEach(p -> {
        if (!p.shared()) p.rowsAndKeys().close();
      }));
      throw e;
    } finally {
      closeAll(slices);
    }
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
   * Rows of part {@code part} on device {@code source}: build rows for a device's table, or stream rows to be
   * probed against that part's build rows. A shared piece's batch goes to several devices and is not the piece's.
   */
  private record Piece(int part, int source, DeviceBatch rowsAndKeys, boolean shared) {}

  /**
   * Device e's pieces copied there and probed; returns the output, at home or on e. Closes the pieces.
   */
  private List<DeviceBatch> probe(int e, List<Piece> pieces, SpreadLayout layout, boolean outputHome) {
    List<DeviceBatch> result = new ArrayList<>();
    try {
      for (Piece piece : pieces) {
        boolean borrowed = piece.shared() && piece.source() == e;
        DeviceBatch local = borrowed ? piece.rowsAndKeys() : piece.shared()
            ? copy(piece.source(), e, piece.rowsAndKeys()) : move(piece.source(), e, piece.rowsAndKeys());
        try {
          // a build-split part's rows are in device e's own table; a stream-split part's in its copy there
          SpreadPart target = piece.part() == e || buildSplit[piece.part()] ? parts.get(e)
              : replicas.get(e).get(piece.part());
          target.join().join(layout.rows(local), layout.keys(local, nullSafe),
              b -> result.add(outputHome ? move(e, home, b) : b));
        } finally {
          if (!borrowed) local.close();
        }
      }
      return result;
    } catch (RuntimeException failure) {
      Closeables.closeAll(result);
      throw failure;
    } finally {
      pieces.forEach(p -> {
        if (!p.shared()) p.rowsAndKeys().close();
      });
    }
  }

  /** Each share scattered on its own device, all at once ({@link #scatter}); null for a device without one. */
  private List<List<DeviceBatch>> scatterShares(List<DeviceBatch> shares, List<JoinKeys> keys, SpreadLayout layout) {
    return onEachDevice(s -> shares.get(s) == null ? null : scatter(s, shares.get(s), keys.get(s), layout),
        slices -> closeAll(Collections.singletonList(slices)));
  }

  /** Closes every slice left of a scatter of shares (a source without a share is null). */
  private static void closeAll(List<List<DeviceBatch>> slicesBySource) {
    for (List<DeviceBatch> slices : slicesBySource) {
      if (slices != null) Closeables.closeAll(slices);
    }
  }

  /**
   * The batch's rows and keys combined by {@code layout}, split into one batch per device by the keys' hash, on
   * device {@code s}, where the batch is. The batch and keys stay the caller's.
   */
  private List<DeviceBatch> scatter(int s, DeviceBatch batch, JoinKeys keys, SpreadLayout layout) {
    // the view shares the batch's and the keys' columns: it is not closed
    DeviceBatch rowsAndKeys = layout.combine(batch, keys);
    try (PartitionedBatch grouped = PartitionedBatch.hash(devices.get(s), rowsAndKeys, layout.keyColumns(),
        devices.size(), SEED, streams.get(s))) {
      return slices(s, grouped);
    }
  }

  /** A split part's rows on device s dealt round-robin, one batch per device, still on s; closes the part. */
  private List<DeviceBatch> deal(int s, DeviceBatch part) {
    try (part;
        PartitionedBatch grouped = PartitionedBatch.roundRobin(devices.get(s), part, 0, devices.size(),
            streams.get(s))) {
      return slices(s, grouped);
    }
  }

  /** Each partition of {@code grouped}, on device s, as a batch of its own there. */
  private List<DeviceBatch> slices(int s, PartitionedBatch grouped) {
    List<DeviceBatch> slices = new ArrayList<>();
    try {
      for (int d = 0; d < devices.size(); d++) {
        slices.add(BatchSlicer.slice(devices.get(s), grouped.batch(), grouped.starts()[d], grouped.rows(d),
            streams.get(s)));
      }
      return slices;
    } catch (RuntimeException e) {
      Closeables.closeAll(slices);
      throw e;
    }
  }

  /**
   * Which build parts are split (see the class comment), and the scattered slices as the pieces each device
   * builds from: its own part's, and its share of the split parts' rows. Takes the slices (clearing their places).
   */
  private List<List<Piece>> buildPieces(List<List<DeviceBatch>> slicesBySource) {
    int count = devices.size();
    for (int d = 0; d < count; d++) {
      long bytes = 0;
      for (List<DeviceBatch> slices : slicesBySource) bytes += slices == null ? 0 : slices.get(d).deviceBytes();
      buildSplit[d] = buildSplittable && heavy(d, bytes) && everyDeviceFits(2 * bytes / count);
    }
    List<List<Piece>> pieces = new ArrayList<>();
    for (int e = 0; e < count; e++) pieces.add(new ArrayList<>());
    try {
      for (int s = 0; s < count; s++) {
        if (slicesBySource.get(s) == null) continue;
        for (int d = 0; d < count; d++) {
          DeviceBatch slice = slicesBySource.get(s).set(d, null);
          if (!buildSplit[d]) {
            pieces.get(d).add(new Piece(d, s, slice, false));
            continue;
          }
          List<DeviceBatch> dealt = deal(s, slice);
          for (int e = 0; e < count; e++) pieces.get(e).add(new Piece(d, s, dealt.get(e), false));
        }
      }
      return pieces;
    } catch (RuntimeException e) {
      pieces.forEach(list -> list.forEach(p -> p.rowsAndKeys().close()));
      throw e;
    }
  }

  /** Whether a part of {@code bytes} is too heavy for device d (see the class comment). */
  private boolean heavy(int d, long bytes) {
    return bytes > Math.min(splitBytes, free(d) / 4);
  }

  /** Whether every device has {@code bytes} of memory free. */
  private boolean everyDeviceFits(long bytes) {
    return IntStream.range(0, devices.size()).allMatch(e -> free(e) >= bytes);
  }

  /** Whether stream part d is split over the devices (see the class comment). */
  private boolean splits(int d, DeviceBatch part) {
    if (!streamSplittable || !heavy(d, part.deviceBytes())) return false;
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
      DeviceBatch copy = PeerBatchCopy.copy(devices.get(d), parts.get(d).rowsAndKeys(), streams.get(d),
          devices.get(e), streams.get(e));
      replicas.get(e).put(d, new SpreadPart(devices.get(e), copy, buildLayout, nullSafe, type, buildSide, condition,
          streamTypes, chunkPairs, streams.get(e)));
    }
  }

  /** Device d's build pieces moved there and made one batch; takes the pieces (clearing the list). */
  private DeviceBatch gather(int d, List<Piece> pieces) {
    List<DeviceBatch> moved = new ArrayList<>();
    try {
      while (!pieces.isEmpty()) {
        Piece piece = pieces.remove(pieces.size() - 1);
        moved.add(0, move(piece.source(), d, piece.rowsAndKeys()));
      }
      if (moved.size() == 1) return moved.remove(0);
      return BatchConcatenator.concat(devices.get(d), moved, streams.get(d));
    } finally {
      Closeables.closeAll(moved);
    }
  }

  /** A batch on device {@code from} moved to device {@code to} (the same batch when they are one); closes it else. */
  private DeviceBatch move(int from, int to, DeviceBatch batch) {
    if (from == to) return batch;
    try (batch) {
      return copy(from, to, batch);
    }
  }

  /** A copy on device {@code to} of a batch on device {@code from} (another one), which stays open. */
  private DeviceBatch copy(int from, int to, DeviceBatch batch) {
    return PeerBatchCopy.copy(devices.get(from), batch, streams.get(from), devices.get(to), streams.get(to));
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
