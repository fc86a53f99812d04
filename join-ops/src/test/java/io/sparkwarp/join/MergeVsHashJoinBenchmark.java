package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.join.JoinKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;

/**
 * The merge-path sort-merge join against the hash join on one GPU, inner joins of two int64 key columns of {@code
 * rows} rows each: the right side holds every key {@code m} times (m = 1, 2, 4, 8, 16, 32), the left side keys
 * drawn uniformly from the same domain, so every left row matches m right rows (rows x m pairs); and a skewed case,
 * unique right keys and left keys drawn log-uniformly (Zipf-like, z about 1: key 0 is hit by about 1 row in 20);
 * and unique right keys with a left side 4 and 16 times as long, each left row matching one.
 * Each join runs end to end as the plugin runs it: the hash join builds its table and probes the left side; the merge
 * join sorts both sides and expands; both gather the key columns of every pair into output batches of at most 2^22
 * rows, freed at once. One warm-up, then the median of 3, timed by synchronised wall clocks around each whole join. The
 * hash table's build alone is timed too, with its mean bucket length: {@code spark.warp.join.algorithm=auto} builds
 * the table first and merges where that length says the keys repeat enough, so the build is what a switch wastes.
 *
 * <p>Run: {@code run.sh main io.sparkwarp.join.MergeVsHashJoinBenchmark [rows=10000000] [--host]}.
 */
public final class MergeVsHashJoinBenchmark {
  private static final int CHUNK = 1 << 22;
  private static final int REPEAT = 3;

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 && !args[0].startsWith("--") ? Integer.parseInt(args[0]) : 10_000_000;
    boolean host = Arrays.asList(args).contains("--host");
    try (Backend backend = Backends.open(host ? BackendKind.HOST : BackendKind.CUDA, BackendOptions.defaults());
        DeviceStream stream = backend.newStream(); RootAllocator allocator = new RootAllocator()) {
      System.out.println("device " + backend.description() + ", " + rows + " rows per side (the right one smaller "
          + "where said), inner joins of int64 keys, median of " + REPEAT + " ms");
      System.out.printf("%-28s %12s %10s %10s %8s %10s %9s%n", "case", "pairs", "hash ms", "merge ms", "merge/hash",
          "build ms", "rows/key");
      for (int m : new int[] {1, 2, 4, 8, 16, 32}) {
        long domain = Math.max(1, rows / m);
        SplittableRandom rnd = new SplittableRandom(m);
        run(backend, stream, allocator, m + " matches per left row", i -> i % domain, rows,
            () -> rnd.nextLong(domain), rows);
      }
      for (int ratio : new int[] {4, 16}) {
        int buildRows = rows / ratio;
        SplittableRandom rnd = new SplittableRandom(ratio);
        run(backend, stream, allocator, "left " + ratio + "x right, unique", i -> i, buildRows,
            () -> rnd.nextLong(buildRows), rows);
      }
      SplittableRandom rnd = new SplittableRandom(99);
      run(backend, stream, allocator, "log-uniform left, unique right", i -> i, rows,
          () -> (long) Math.pow(rows, rnd.nextDouble()) - 1, rows);
    }
  }

  private interface KeyAt {
    long key(long row);
  }

  private static void run(Backend backend, DeviceStream stream, RootAllocator allocator, String name, KeyAt right,
      int rightRows, LongSupplier left, int leftRows) {
    try (DeviceBatch l = upload(backend, stream, allocator, i -> left.getAsLong(), leftRows);
        DeviceBatch r = upload(backend, stream, allocator, right, rightRows)) {
      JoinKeys lk = JoinKeys.of(l.column(0));
      JoinKeys rk = JoinKeys.of(r.column(0));
      AtomicLong pairs = new AtomicLong();
      double hash = median(stream, () -> {
        pairs.set(0);
        try (HashJoinBuild table = HashJoinBuild.build(backend, rk, HashJoinBuild.Choice.AUTO, stream);
            DeviceHashJoin join = new DeviceHashJoin(backend, r, rk, table, JoinType.INNER, JoinType.Side.RIGHT,
                null, List.of(DeviceType.LONG), CHUNK, null, stream)) {
          join.join(l, lk, b -> {
            pairs.addAndGet(b.rowCount());
            b.close();
          });
        }
      });
      long hashPairs = pairs.get();
      double[] rowsPerKey = new double[1];
      double build = median(stream, () -> {
        try (HashJoinBuild table = HashJoinBuild.build(backend, rk, HashJoinBuild.Choice.AUTO, stream)) {
          rowsPerKey[0] = table.table().isUnique() ? 1 : table.table().meanBucketLength();
        }
      });
      double merge = median(stream, () -> pairs.set(DeviceMergeJoin.join(backend, l, lk, r, rk, JoinType.INNER, null,
          CHUNK, stream, b -> b.close())));
      if (pairs.get() != hashPairs) throw new AssertionError(name + ": merge " + pairs + " pairs, hash " + hashPairs);
      System.out.printf("%-28s %12d %10.1f %10.1f %8.2f %10.1f %9.1f%n", name, hashPairs, hash, merge, merge / hash,
          build, rowsPerKey[0]);
    }
  }

  private static double median(DeviceStream stream, Runnable join) {
    join.run();  // warm-up
    stream.synchronize();
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < REPEAT; i++) {
      long start = System.nanoTime();
      join.run();
      stream.synchronize();
      ms.add((System.nanoTime() - start) / 1e6);
    }
    ms.sort(null);
    return ms.get(REPEAT / 2);
  }

  private static DeviceBatch upload(Backend backend, DeviceStream stream, RootAllocator allocator, KeyAt key,
      int rows) {
    try (BigIntVector v = new BigIntVector("k", allocator)) {
      v.allocateNew(rows);
      for (int i = 0; i < rows; i++) v.set(i, key.key(i));
      v.setValueCount(rows);
      DeviceBatch batch = ArrowUpload.upload(backend, List.<FieldVector>of(v), stream);
      stream.synchronize();
      return batch;
    }
  }
}
