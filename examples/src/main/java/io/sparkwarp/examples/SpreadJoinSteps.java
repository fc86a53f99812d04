package io.sparkwarp.examples;

import io.sparkwarp.join.DeviceHashJoin;
import io.sparkwarp.join.HashJoinBuild;
import io.sparkwarp.join.JoinType;
import io.sparkwarp.join.SpreadHashJoin;
import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchRange;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * Where {@link SpreadHashJoin}'s time goes with its inputs spread (issue 16): the steps it makes, each timed on its
 * own on all devices at once (a thread a device, every stream synchronised after the step), through the same public
 * primitives in the same order: per side the murmur3 part ids, the stable grouping by part, the gather into grouped
 * order, the parts' byte ranges, and each device's pull of its part from every device (with the pull of its own
 * range alone and of the others' alone, to split local copy from link); then the build side's tables and the probe.
 * The whole spread join over the same shares is timed last, for the sum to compare with. Rows as {@link
 * MultiDeviceJoinBenchmark}'s spread setup (one match a key, 1/D of each side on each device, a stream batch a
 * device); one warm-up, then the median of 3 of every step.
 *
 * <p>Arguments: rows per side, devices, backend ({@code cuda} or {@code host}). On a machine with two GPUs: {@code
 * run.sh main io.sparkwarp.examples.SpreadJoinSteps 200000000 2 cuda}.
 */
public final class SpreadJoinSteps {
  private static final int RUNS = 3;
  private static final int CHUNK_PAIRS = 1 << 26;
  private static final List<DeviceType> STREAM_TYPES = List.of(DeviceType.LONG, DeviceType.LONG);

  private final List<Backend> devices;
  private final List<DeviceStream> streams;
  private final ExecutorService workers;
  /** Each step's times, in the order first made. */
  private final Map<String, List<Double>> millis = new LinkedHashMap<>();

  private SpreadJoinSteps(List<Backend> devices, List<DeviceStream> streams) {
    this.devices = devices;
    this.streams = streams;
    this.workers = Executors.newFixedThreadPool(devices.size());
  }

  public static void main(String[] args) {
    if (args.length != 3) {
      System.err.println("usage: SpreadJoinSteps ROWS_PER_SIDE DEVICES cuda|host");
      System.exit(2);
    }
    run(Integer.parseInt(args[0]), Integer.parseInt(args[1]), BackendKind.valueOf(args[2].toUpperCase(Locale.ROOT)),
        System.out);
  }

  /** Times every step; returns each step's median (ms), in order, and prints them to {@code out}. */
  public static Map<String, Double> run(int rows, int count, BackendKind backend, PrintStream out) {
    if (count < 2 || rows < count) throw new IllegalArgumentException(rows + " rows over " + count + " devices");
    List<Backend> devices = new ArrayList<>();
    List<DeviceStream> streams = new ArrayList<>();
    List<DeviceBatch> build = new ArrayList<>();
    List<DeviceBatch> stream = new ArrayList<>();
    SpreadJoinSteps steps = null;
    try {
      MultiDeviceJoinBenchmark.Args shape = new MultiDeviceJoinBenchmark.Args(rows, 1, count, backend, null, 8);
      for (int d = 0; d < count; d++) {
        devices.add(Backends.open(backend, BackendOptions.defaults().withDevice(d)));
        streams.add(devices.get(d).newStream());
        int first = (int) ((long) rows * d / count);
        int n = (int) ((long) rows * (d + 1) / count) - first;
        build.add(MultiDeviceJoinBenchmark.buildRows(devices.get(d), first, n, shape, streams.get(d)));
        stream.add(MultiDeviceJoinBenchmark.streamRows(devices.get(d), first, n, shape, streams.get(d)));
      }
      // enables CUDA peer access, as SpreadHashJoin's constructor does, before the first pull reads a peer
      if (!Backends.readEachOther(devices)) {
        throw new IllegalStateException("the devices do not all read each other's memory: the spread join's pulls "
            + "need it");
      }
      steps = new SpreadJoinSteps(devices, streams);
      for (int run = 0; run <= RUNS; run++) {
        if (run == 1) steps.millis.clear();  // the first run warms up
        steps.once(build, stream);
      }
      Map<String, Double> medians = new LinkedHashMap<>();
      out.printf(Locale.ROOT, "spread join steps, %,d x %,d rows over %d devices: %s%n", rows, rows, count,
          devices.get(0).description());
      steps.millis.forEach((step, times) -> {
        medians.put(step, MultiDeviceJoinBenchmark.median(times));
        out.printf(Locale.ROOT, "| %s | %.2f ms |%n", step, medians.get(step));
      });
      return medians;
    } finally {
      if (steps != null) steps.workers.shutdownNow();
      Closeables.closeAll(build);
      Closeables.closeAll(stream);
      Closeables.closeAll(streams);
      Closeables.closeAll(devices);
    }
  }

  /** One run of every step, then the whole spread join. */
  private void once(List<DeviceBatch> build, List<DeviceBatch> stream) {
    List<DeviceBatch> parts = new ArrayList<>();
    List<HashJoinBuild> tables = new ArrayList<>();
    List<DeviceHashJoin> joins = new ArrayList<>();
    try {
      parts.addAll(exchange("build", build, true));
      tables.addAll(onEach("build: tables", e -> HashJoinBuild.build(devices.get(e), keys(parts.get(e)),
          HashJoinBuild.Choice.AUTO, streams.get(e))));
      joins.addAll(onEach("build: joins", e -> new DeviceHashJoin(devices.get(e), parts.get(e), keys(parts.get(e)),
          tables.get(e), JoinType.INNER, JoinType.Side.RIGHT, null, STREAM_TYPES, CHUNK_PAIRS, null,
          streams.get(e))));
      List<DeviceBatch> probes = exchange("stream", stream, false);
      try {
        onEach("probe (output dropped)", e -> {
          joins.get(e).join(probes.get(e), keys(probes.get(e)), DeviceBatch::close);
          joins.get(e).finish(DeviceBatch::close);
          return null;
        });
      } finally {
        Closeables.closeAll(probes);
      }
    } finally {
      Closeables.closeAll(joins);
      Closeables.closeAll(tables);
      Closeables.closeAll(parts);
    }
    synchronise();
    long start = System.nanoTime();
    try (SpreadHashJoin join = new SpreadHashJoin(devices, 0, build, MultiDeviceJoinBenchmark.keysOf(build),
        JoinType.INNER, JoinType.Side.RIGHT, null, STREAM_TYPES, CHUNK_PAIRS, Long.MAX_VALUE, streams)) {
      join.joinShares(stream, MultiDeviceJoinBenchmark.keysOf(stream), (batch, device) -> batch.close());
      join.finish(DeviceBatch::close);
    }
    synchronise();
    millis.computeIfAbsent("whole SpreadHashJoin", k -> new ArrayList<>()).add((System.nanoTime() - start) / 1e6);
  }

  /** One side's exchange step by step; returns each device's part, pulled there. */
  private List<DeviceBatch> exchange(String side, List<DeviceBatch> shares, boolean splitPulls) {
    int count = devices.size();
    List<DeviceBuffer> scratch = new ArrayList<>();
    List<DeviceBatch> grouped = new ArrayList<>();
    try {
      List<DeviceBuffer> order = new ArrayList<>();
      for (int d = 0; d < count; d++) {
        order.add(devices.get(d).allocate(4L * shares.get(d).rowCount(), streams.get(d)));
        scratch.add(order.get(d));
      }
      List<DeviceBuffer> ids = onEach(side + ": part ids", d -> {
        DeviceBuffer buffer = devices.get(d).allocate(4L * shares.get(d).rowCount(), streams.get(d));
        devices.get(d).partitions().hashPartitionIds(List.of(shares.get(d).column(0)), shares.get(d).rowCount(),
            count, SpreadHashJoin.SEED, buffer, streams.get(d));
        return buffer;
      });
      scratch.addAll(ids);
      List<int[]> starts = onEach(side + ": grouping", d -> devices.get(d).partitions().groupByPartition(ids.get(d),
          shares.get(d).rowCount(), count, order.get(d), streams.get(d)));
      grouped.addAll(onEach(side + ": gather", d -> devices.get(d).joins().gather(shares.get(d), order.get(d),
          shares.get(d).rowCount(), streams.get(d))));
      List<List<BatchRange>> ranges = onEach(side + ": byte ranges", d -> {
        int[] lengths = new int[count];
        for (int e = 0; e < count; e++) lengths[e] = starts.get(d)[e + 1] - starts.get(d)[e];
        return BatchSlicer.ranges(devices.get(d), grouped.get(d), Arrays.copyOf(starts.get(d), count),
            lengths, streams.get(d));
      });
      if (splitPulls) {
        Closeables.closeAll(onEach(side + ": pull of the own range", e -> pull(e, List.of(ranges.get(e).get(e)))));
        Closeables.closeAll(onEach(side + ": pull of the others' ranges", e -> {
          List<BatchRange> others = new ArrayList<>();
          for (int s = 0; s < count; s++) if (s != e) others.add(ranges.get(s).get(e));
          return pull(e, others);
        }));
      }
      return onEach(side + ": pull of all ranges", e -> {
        List<BatchRange> all = new ArrayList<>();
        for (int s = 0; s < count; s++) all.add(ranges.get(s).get(e));
        return pull(e, all);
      });
    } finally {
      Closeables.closeAll(grouped);
      Closeables.closeAll(scratch);
    }
  }

  private DeviceBatch pull(int e, List<BatchRange> ranges) {
    return BatchConcatenator.concatRanges(devices.get(e), ranges, streams.get(e));
  }

  /**
   * {@code step} on every device at once, each synchronised after; its wall time is recorded under the step's name
   * and the results returned in device order.
   */
  private <T> List<T> onEach(String step, IntFunction<T> work) {
    synchronise();
    long start = System.nanoTime();
    List<Future<T>> futures = new ArrayList<>();
    for (int d = 0; d < devices.size(); d++) {
      int device = d;
      futures.add(workers.submit(() -> {
        T result = work.apply(device);
        streams.get(device).synchronize();
        return result;
      }));
    }
    List<T> results = new ArrayList<>();
    for (Future<T> future : futures) {
      try {
        results.add(future.get());
      } catch (InterruptedException | ExecutionException e) {
        throw new IllegalStateException("step " + step + " failed", e);
      }
    }
    millis.computeIfAbsent(step, k -> new ArrayList<>()).add((System.nanoTime() - start) / 1e6);
    return results;
  }

  private void synchronise() {
    streams.forEach(DeviceStream::synchronize);
  }

  private static JoinKeys keys(DeviceBatch batch) {
    return JoinKeys.of(batch.column(0));
  }
}
