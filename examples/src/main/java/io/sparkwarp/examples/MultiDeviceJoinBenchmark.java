package io.sparkwarp.examples;

import io.sparkwarp.examples.report.MultiDeviceJoinResults;
import io.sparkwarp.examples.report.MultiDeviceJoinResults.JoinRun;
import io.sparkwarp.examples.report.MultiDeviceJoinResults.PeerCopy;
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
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;
import java.util.function.ObjIntConsumer;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Issue 16's multi-device figures: peer copies between devices 0 and 1 (each way, and both at once; whether the pair
 * has direct access), and an inner join of N x N rows (int64 key, int64 payload a side; each stream row matching
 * {@code matchesPerKey} build rows) on device 0 alone against {@link SpreadHashJoin} over all devices, in two setups:
 * the inputs resident on device 0 as a task's partition is (the output brought back there), and the inputs already
 * spread, 1/D of each side generated on each device as tasks' scans would land them (each device groups its share by
 * part, and each pulls its part from all; the output stays where it is made). The one-device join is the same in
 * both. A third figure is the bound any exchange approaches: the same rows already partitioned by key range (device d
 * holding the build rows of its keys and the stream rows matching them), each device joining its own with a plain
 * {@link DeviceHashJoin}, no byte moving; its answer must equal one device's too. Times are wall clock with the
 * streams synchronised around the work: one warm-up, then the median of 5 copies or 3 joins. The warm-up of each join
 * also checks the answer: its row count and a checksum of the payload pairs must be equal on one device and on all.
 * Inputs are generated on the host and uploaded through pinned memory before anything is timed.
 *
 * <p>Memory: the inputs take 17 bytes a row a side on device 0 (1 G rows: 17 GB a side); the spread join partitions
 * the build side there (about three times its bytes at the peak) before sending the parts away. The first setup's
 * inputs are freed before the second's are made.
 *
 * <p>Arguments: rows per side, matches per key, devices, backend ({@code cuda} or {@code host}), JSON output, and
 * optionally the bytes of each peer copy (default 1 GiB). Exits 1 when an answer differed. On a machine with two GPUs:
 * {@code run.sh main io.sparkwarp.examples.MultiDeviceJoinBenchmark 1000000000 1 2 cuda /tmp/multi-device-join.json}.
 */
public final class MultiDeviceJoinBenchmark {
  private static final int COPY_RUNS = 5;
  private static final int JOIN_RUNS = 3;
  /** Stream rows per batch: a task's stream side arrives in batches. */
  private static final int STREAM_BATCH_ROWS = 1 << 27;
  /** Pairs per probe chunk, so each output batch stays well below the device's memory. */
  private static final int CHUNK_PAIRS = 1 << 26;
  /** Rows per copy from the pinned staging block. */
  private static final int UPLOAD_ROWS = 1 << 26;
  private static final long MIX = 0x9E3779B97F4A7C15L;
  /** How the table names each setup of the inputs. */
  private static final Map<String, String> SETUPS = Map.of("home", "on device 0", "spread", "spread over the devices",
      "local", "partitioned by key already (no exchange)");
  /** The stream side's columns: key and payload. */
  private static final List<DeviceType> STREAM_TYPES = List.of(DeviceType.LONG, DeviceType.LONG);

  private MultiDeviceJoinBenchmark() {}

  /** The command line. */
  public record Args(int rowsPerSide, int matchesPerKey, int devices, BackendKind backend, Path json,
      long copyBytes) {
    static final String USAGE = "usage: MultiDeviceJoinBenchmark ROWS_PER_SIDE MATCHES_PER_KEY DEVICES cuda|host "
        + "JSON_OUTPUT [PEER_COPY_BYTES=1073741824]";

    public Args {
      if (rowsPerSide < 1 || matchesPerKey < 1 || matchesPerKey > rowsPerSide) {
        throw new IllegalArgumentException(rowsPerSide + " rows a side with " + matchesPerKey + " matches per key");
      }
      if (devices < 2) {
        throw new IllegalArgumentException("the benchmark compares 1 device with 2 or more, not " + devices);
      }
      if (copyBytes < 8) throw new IllegalArgumentException("peer copies of " + copyBytes + " bytes");
    }

    public static Args parse(String... args) {
      if (args.length != 5 && args.length != 6) throw new IllegalArgumentException(USAGE);
      return new Args(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]),
          BackendKind.valueOf(args[3].toUpperCase(Locale.ROOT)), Path.of(args[4]),
          args.length == 6 ? Long.parseLong(args[5]) : 1L << 30);
    }
  }

  public static void main(String[] args) {
    Args parsed;
    try {
      parsed = Args.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    MultiDeviceJoinResults results = run(parsed, System.out);
    results.write(parsed.json());
    System.out.println("results: " + parsed.json());
    if (!results.joins().stream().allMatch(JoinRun::matched)) System.exit(1);
  }

  /** Runs everything on {@code args.devices()} devices of the backend, printing a table to {@code out}. */
  public static MultiDeviceJoinResults run(Args args, PrintStream out) {
    List<Backend> devices = new ArrayList<>();
    List<DeviceStream> streams = new ArrayList<>();
    try {
      for (int d = 0; d < args.devices(); d++) {
        devices.add(Backends.open(args.backend(), BackendOptions.defaults().withDevice(d)));
        streams.add(devices.get(d).newStream());
        out.println("device " + d + ": " + devices.get(d).description());
      }
      boolean direct = devices.get(0).directPeerAccess(devices.get(1));
      out.println("direct peer access 0<->1: " + direct);
      out.println("| peer copy | GB/s |");
      out.println("|---|---|");
      List<PeerCopy> copies = peerCopies(devices, streams, args.copyBytes());
      for (PeerCopy c : copies) out.printf(Locale.ROOT, "| %s | %.1f |%n", c.direction(), c.gbPerSecond());
      Baseline baseline = new Baseline();
      JoinRun home = joinAtHome(devices, streams, args, baseline);
      JoinRun spread = joinSpread(devices, streams, args, baseline);
      JoinRun local = joinCoPartitioned(devices, streams, args, baseline);
      out.printf(Locale.ROOT, "| join %,d x %,d, %d match(es) a key | 1 device ms | %d devices ms | speed-up |%n",
          args.rowsPerSide(), args.rowsPerSide(), args.matchesPerKey(), args.devices());
      out.println("|---|---|---|---|");
      for (JoinRun run : List.of(home, spread, local)) {
        out.printf(Locale.ROOT, "| inputs %s | %.1f | %.1f | %.2fx |%n", SETUPS.get(run.setup()),
            median(run.oneDeviceMillis()), median(run.allDevicesMillis()), run.speedUp());
      }
      boolean matched = home.matched() && spread.matched() && local.matched();
      out.println("output rows " + home.outputRows() + ", answers " + (matched ? "match" : "DIFFER"));
      return new MultiDeviceJoinResults(args.backend().name().toLowerCase(Locale.ROOT),
          devices.stream().map(Backend::description).toList(), direct, args.copyBytes(), copies, args.rowsPerSide(),
          args.matchesPerKey(), List.of(home, spread, local));
    } finally {
      Closeables.closeAll(streams);
      Closeables.closeAll(devices);
    }
  }

  // ---- peer copies

  private static List<PeerCopy> peerCopies(List<Backend> devices, List<DeviceStream> streams, long bytes) {
    Backend zero = devices.get(0);
    Backend one = devices.get(1);
    DeviceStream s0 = streams.get(0);
    DeviceStream s1 = streams.get(1);
    try (DeviceBuffer from0 = zero.allocate(bytes, s0); DeviceBuffer to0 = zero.allocate(bytes, s0);
        DeviceBuffer from1 = one.allocate(bytes, s1); DeviceBuffer to1 = one.allocate(bytes, s1)) {
      zero.fill(from0, 0, bytes, (byte) 1, s0);
      one.fill(from1, 0, bytes, (byte) 2, s1);
      List<DeviceStream> both = List.of(s0, s1);
      List<Double> forth = timed(COPY_RUNS, true, both, () -> zero.copyToPeer(from0, 0, one, to1, 0, bytes, s0));
      List<Double> back = timed(COPY_RUNS, true, both, () -> one.copyToPeer(from1, 0, zero, to0, 0, bytes, s1));
      List<Double> together = timed(COPY_RUNS, true, both, () -> {
        zero.copyToPeer(from0, 0, one, to1, 0, bytes, s0);
        one.copyToPeer(from1, 0, zero, to0, 0, bytes, s1);
      });
      return List.of(new PeerCopy("0->1", forth, bytes / median(forth) / 1e6),
          new PeerCopy("1->0", back, bytes / median(back) / 1e6),
          new PeerCopy("0<->1", together, 2.0 * bytes / median(together) / 1e6));
    }
  }

  // ---- the join

  /** The one-device join's answer and times, measured in the first setup and compared against in both. */
  private static final class Baseline {
    Answer answer;
    List<Double> millis;
  }

  /** Inputs on device 0: the plain hash join there against the spread join over all devices. */
  private static JoinRun joinAtHome(List<Backend> devices, List<DeviceStream> streams, Args args, Baseline baseline) {
    Backend home = devices.get(0);
    DeviceStream stream = streams.get(0);
    int rows = args.rowsPerSide();
    List<DeviceBatch> streamBatches = new ArrayList<>();
    try (DeviceBatch build = buildRows(home, 0, rows, args, stream)) {
      for (int first = 0; first < rows; first += STREAM_BATCH_ROWS) {
        streamBatches.add(streamRows(home, first, Math.min(STREAM_BATCH_ROWS, rows - first), args, stream));
      }
      Runner one = sink -> {
        JoinKeys buildKeys = JoinKeys.of(build.column(0));
        try (HashJoinBuild table = HashJoinBuild.build(home, buildKeys, HashJoinBuild.Choice.AUTO, stream);
            DeviceHashJoin join = new DeviceHashJoin(home, build, buildKeys, table, JoinType.INNER,
                JoinType.Side.RIGHT, null, STREAM_TYPES, CHUNK_PAIRS, null, stream)) {
          for (DeviceBatch b : streamBatches) join.join(b, JoinKeys.of(b.column(0)), b2 -> sink.accept(b2, 0));
          join.finish(b -> sink.accept(b, 0));
        }
      };
      Runner all = sink -> {
        try (SpreadHashJoin join = new SpreadHashJoin(devices, 0, build, JoinKeys.of(build.column(0)),
            JoinType.INNER, JoinType.Side.RIGHT, null, STREAM_TYPES, CHUNK_PAIRS, Long.MAX_VALUE, stream)) {
          for (DeviceBatch b : streamBatches) join.join(b, JoinKeys.of(b.column(0)), b2 -> sink.accept(b2, 0));
          join.finish(b -> sink.accept(b, 0));
        }
      };
      baseline.answer = checked(devices, streams, one);
      Answer allAnswer = checked(devices, streams, all);
      baseline.millis = timedJoins(streams, one);
      List<Double> allMillis = timedJoins(streams, all);
      return new JoinRun("home", baseline.millis, allMillis, median(baseline.millis) / median(allMillis),
          baseline.answer.rows(), baseline.answer.equals(allAnswer));
    } finally {
      Closeables.closeAll(streamBatches);
    }
  }

  /**
   * Inputs spread: device d holds rows [d N / D, (d + 1) N / D) of each side, its stream share in batches; the
   * spread join over all devices against the one-device baseline (the same rows, on device 0).
   */
  private static JoinRun joinSpread(List<Backend> devices, List<DeviceStream> streams, Args args, Baseline baseline) {
    int count = devices.size();
    long rows = args.rowsPerSide();
    List<DeviceBatch> buildShares = new ArrayList<>();
    List<List<DeviceBatch>> streamShares = new ArrayList<>();
    try {
      int rounds = 0;
      for (int d = 0; d < count; d++) {
        int first = (int) (rows * d / count);
        int end = (int) (rows * (d + 1) / count);
        buildShares.add(buildRows(devices.get(d), first, end - first, args, streams.get(d)));
        List<DeviceBatch> batches = new ArrayList<>();
        streamShares.add(batches);
        for (int at = first; at < end; at += STREAM_BATCH_ROWS) {
          batches.add(streamRows(devices.get(d), at, Math.min(STREAM_BATCH_ROWS, end - at), args, streams.get(d)));
        }
        rounds = Math.max(rounds, batches.size());
      }
      int batchRounds = rounds;
      Runner all = sink -> {
        try (SpreadHashJoin join = new SpreadHashJoin(devices, 0, buildShares, keysOf(buildShares), JoinType.INNER,
            JoinType.Side.RIGHT, null, STREAM_TYPES, CHUNK_PAIRS, Long.MAX_VALUE, streams)) {
          for (int round = 0; round < batchRounds; round++) {
            List<DeviceBatch> shares = new ArrayList<>();
            for (List<DeviceBatch> batches : streamShares) {
              shares.add(round < batches.size() ? batches.get(round) : null);
            }
            join.joinShares(shares, keysOf(shares), sink::accept);
          }
          join.finish(b -> sink.accept(b, 0));
        }
      };
      Answer answer = checked(devices, streams, all);
      List<Double> millis = timedJoins(streams, all);
      return new JoinRun("spread", baseline.millis, millis, median(baseline.millis) / median(millis), answer.rows(),
          answer.equals(baseline.answer));
    } finally {
      Closeables.closeAll(buildShares);
      streamShares.forEach(Closeables::closeAll);
    }
  }

  /**
   * Inputs partitioned by key range already: device d holds the build rows of keys [K d / D, K (d + 1) / D) and the
   * stream rows whose keys fall there, the one-device join's rows exactly; each device joins its own at once.
   */
  private static JoinRun joinCoPartitioned(List<Backend> devices, List<DeviceStream> streams, Args args,
      Baseline baseline) {
    int count = devices.size();
    int rows = args.rowsPerSide();
    long keys = Math.max(1, rows / args.matchesPerKey());
    int[][] streamIndexes = streamRowsByOwner(rows, keys, count);
    List<DeviceBatch> builds = new ArrayList<>();
    List<List<DeviceBatch>> streamShares = new ArrayList<>();
    ExecutorService workers = Executors.newFixedThreadPool(count);
    try {
      for (int d = 0; d < count; d++) {
        // rows past the last key's (rows not a multiple of the matches) have keys no stream row has: the last device
        long first = Math.min(rows, firstKey(d, keys, count) * args.matchesPerKey());
        long end = d == count - 1 ? rows : Math.min(rows, firstKey(d + 1, keys, count) * args.matchesPerKey());
        builds.add(buildRows(devices.get(d), (int) first, (int) (end - first), args, streams.get(d)));
        int[] own = streamIndexes[d];
        List<DeviceBatch> batches = new ArrayList<>();
        streamShares.add(batches);
        for (int at = 0; at < own.length; at += STREAM_BATCH_ROWS) {
          int from = at;
          int n = Math.min(STREAM_BATCH_ROWS, own.length - at);
          batches.add(streamRows(devices.get(d), n, i -> own[from + (int) i], args, streams.get(d)));
        }
      }
      Runner all = sink -> {
        List<Future<?>> joins = new ArrayList<>();
        for (int d = 0; d < count; d++) {
          int device = d;
          joins.add(workers.submit(() -> joinOwn(devices.get(device), builds.get(device), streamShares.get(device),
              streams.get(device), b -> sink.accept(b, device))));
        }
        for (Future<?> join : joins) {
          try {
            join.get();
          } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("a device's join failed", e);
          }
        }
      };
      Answer answer = checked(devices, streams, all);
      List<Double> millis = timedJoins(streams, all);
      return new JoinRun("local", baseline.millis, millis, median(baseline.millis) / median(millis), answer.rows(),
          answer.equals(baseline.answer));
    } finally {
      workers.shutdownNow();
      Closeables.closeAll(builds);
      streamShares.forEach(Closeables::closeAll);
    }
  }

  /** For each device, the stream rows (indexes) whose key it owns: key k belongs to device k D / keys. */
  private static int[][] streamRowsByOwner(int rows, long keys, int count) {
    int[] sizes = new int[count];
    for (int i = 0; i < rows; i++) sizes[owner(streamKey(i, keys), keys, count)]++;
    int[][] indexes = new int[count][];
    for (int d = 0; d < count; d++) indexes[d] = new int[sizes[d]];
    int[] filled = new int[count];
    for (int i = 0; i < rows; i++) {
      int d = owner(streamKey(i, keys), keys, count);
      indexes[d][filled[d]++] = i;
    }
    return indexes;
  }

  private static int owner(long key, long keys, int count) {
    return (int) (key * count / keys);
  }

  /** The first key device d owns: the least k with {@code owner(k) == d}. */
  private static long firstKey(int d, long keys, int count) {
    return (keys * d + count - 1) / count;
  }

  /** A plain hash join on one device of its own build rows and stream batches, the output to {@code out}. */
  private static void joinOwn(Backend backend, DeviceBatch build, List<DeviceBatch> streamBatches,
      DeviceStream stream, Consumer<DeviceBatch> out) {
    JoinKeys buildKeys = JoinKeys.of(build.column(0));
    try (HashJoinBuild table = HashJoinBuild.build(backend, buildKeys, HashJoinBuild.Choice.AUTO, stream);
        DeviceHashJoin join = new DeviceHashJoin(backend, build, buildKeys, table, JoinType.INNER,
            JoinType.Side.RIGHT, null, STREAM_TYPES, CHUNK_PAIRS, null, stream)) {
      for (DeviceBatch b : streamBatches) join.join(b, JoinKeys.of(b.column(0)), out);
      join.finish(out);
    }
  }

  /** Build rows [first, first + count): key i / matchesPerKey, payload i. */
  static DeviceBatch buildRows(Backend backend, int first, int count, Args args, DeviceStream stream) {
    return new DeviceBatch(List.of(longs(backend, count, first, i -> i / args.matchesPerKey(), stream),
        longs(backend, count, first, i -> i, stream)), count);
  }

  /** Stream rows [first, first + count): a scrambled key among the build's, payload -i. */
  static DeviceBatch streamRows(Backend backend, int first, int count, Args args, DeviceStream stream) {
    return streamRows(backend, count, i -> first + i, args, stream);
  }

  /** Stream rows index(0), ..., index(count - 1) of the whole stream side ({@link #streamKey}, payload -i). */
  private static DeviceBatch streamRows(Backend backend, int count, LongUnaryOperator index, Args args,
      DeviceStream stream) {
    long keys = Math.max(1, args.rowsPerSide() / args.matchesPerKey());
    return new DeviceBatch(List.of(longs(backend, count, 0, i -> streamKey(index.applyAsLong(i), keys), stream),
        longs(backend, count, 0, i -> -index.applyAsLong(i), stream)), count);
  }

  /** Stream row i's key: scrambled among the build's {@code keys}. */
  private static long streamKey(long i, long keys) {
    return ((i * MIX) >>> 1) % keys;
  }

  /** The first column of each share as its key (null for none). */
  static List<JoinKeys> keysOf(List<DeviceBatch> shares) {
    List<JoinKeys> keys = new ArrayList<>();
    for (DeviceBatch share : shares) keys.add(share == null ? null : JoinKeys.of(share.column(0)));
    return keys;
  }

  /** One whole join, handing each output batch with the device it is on to the sink. */
  private interface Runner {
    void run(ObjIntConsumer<DeviceBatch> sink);
  }

  /** A join's answer, order-free: its rows and the sum of a mix of each row's two payloads. */
  private record Answer(long rows, long checksum) {}

  /** The warm-up: the join with its output read back and summed. */
  private static Answer checked(List<Backend> devices, List<DeviceStream> streams, Runner join) {
    long[] answer = new long[2];
    join.run((batch, device) -> {
      try (batch) {
        long sum = checksum(devices.get(device), batch, streams.get(device));
        synchronized (answer) {  // the devices' threads hand their output at once
          answer[0] += batch.rowCount();
          answer[1] += sum;
        }
      }
    });
    return new Answer(answer[0], answer[1]);
  }

  /** Sum over the rows of a batch (stream key, stream payload, build key, build payload) of a payload mix. */
  private static long checksum(Backend backend, DeviceBatch batch, DeviceStream stream) {
    int rows = batch.rowCount();
    if (rows == 0) return 0;
    try (HostBlock left = backend.transferMemory().pool().allocate(8L * rows);
        HostBlock right = backend.transferMemory().pool().allocate(8L * rows)) {
      backend.copyDeviceToHost(batch.column(1).data(), 0, left.address(), 8L * rows, stream);
      backend.copyDeviceToHost(batch.column(3).data(), 0, right.address(), 8L * rows, stream);
      stream.synchronize();
      long sum = 0;
      for (long i = 0; i < rows; i++) {
        sum += MemoryUtil.getLong(left.address() + 8 * i) * MIX + MemoryUtil.getLong(right.address() + 8 * i);
      }
      return sum;
    }
  }

  /** The timed joins, their output dropped; the checked run was their warm-up. */
  private static List<Double> timedJoins(List<DeviceStream> streams, Runner join) {
    return timed(JOIN_RUNS, false, streams, () -> join.run((batch, device) -> batch.close()));
  }

  // ---- shared

  /** A column of value(first + i) for i in [0, rows), all valid, uploaded through a pinned staging block. */
  private static DeviceColumn longs(Backend backend, int rows, long first, LongUnaryOperator value,
      DeviceStream stream) {
    DeviceColumn column = DeviceColumn.allocate(backend, DeviceType.LONG, rows, 0, stream);
    long stagingBytes = 8L * Math.max(1, Math.min(rows, UPLOAD_ROWS));
    try (HostBlock staging = backend.transferMemory().pool().allocate(stagingBytes)) {
      backend.fill(column.validity(), 0, column.validity().size(), (byte) 0xFF, stream);
      for (int start = 0; start < rows; start += UPLOAD_ROWS) {
        int count = Math.min(UPLOAD_ROWS, rows - start);
        for (int i = 0; i < count; i++) {
          MemoryUtil.putLong(staging.address() + 8L * i, value.applyAsLong(first + start + i));
        }
        backend.copyHostToDevice(staging.address(), column.data(), 8L * start, 8L * count, stream);
        stream.synchronize();  // before the staging block is filled again
      }
      return column;
    } catch (RuntimeException e) {
      column.close();
      throw e;
    }
  }

  /** {@code runs} timed runs of {@code op} (ms), after an untimed one if asked, every stream synchronised around. */
  private static List<Double> timed(int runs, boolean warmUp, List<DeviceStream> streams, Runnable op) {
    List<Double> millis = new ArrayList<>();
    for (int i = warmUp ? 0 : 1; i <= runs; i++) {
      streams.forEach(DeviceStream::synchronize);
      long start = System.nanoTime();
      op.run();
      streams.forEach(DeviceStream::synchronize);
      if (i > 0) millis.add((System.nanoTime() - start) / 1e6);
    }
    return millis;
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }
}
