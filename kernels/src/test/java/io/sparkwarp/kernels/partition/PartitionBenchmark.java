package io.sparkwarp.kernels.partition;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.BenchmarkClock;
import io.sparkwarp.kernels.testing.BenchmarkColumns;
import java.util.List;

/**
 * The GPU shuffle's map side on the device: Spark's partition ids of a long key, the stable grouping by id, and the
 * whole partitioning of a batch (ids, grouping, one gather of every column), over device-resident rows of (long key,
 * long, double), uniform random keys. CUDA events, one warm-up, median of 5; GB/s count the bytes each step must
 * read and write, against the device copy ceiling measured in the same run.
 *
 * <p>Run on a GPU machine: {@code run.sh main io.sparkwarp.kernels.partition.PartitionBenchmark [rows]} (default
 * 100 M).
 */
public final class PartitionBenchmark {
  private static final int REPEAT = 5;

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000_000;
    try (Backend backend = Backends.open(BackendKind.CUDA, BackendOptions.defaults());
        DeviceStream stream = backend.newStream();
        BenchmarkClock clock = BenchmarkClock.of(backend, stream);
        DeviceBatch batch = new DeviceBatch(List.of(
            BenchmarkColumns.random(backend, DeviceType.LONG, rows, 0, 1, stream),
            BenchmarkColumns.random(backend, DeviceType.LONG, rows, 0, 2, stream),
            BenchmarkColumns.random(backend, DeviceType.DOUBLE, rows, 0, 3, stream)), rows);
        DeviceBuffer ids = backend.allocate(4L * rows, stream);
        DeviceBuffer order = backend.allocate(4L * rows, stream)) {
      System.out.println("device: " + backend.description() + ", " + rows + " rows of (long key, long, double)");
      double ceiling = clock.copyGbs(backend, stream, 1L << 30, REPEAT);
      System.out.printf("device copy ceiling: %.0f GB/s (bytes read + written)%n%n", ceiling);
      System.out.println("| step | partitions | ms | M rows/s | GB/s | of copy ceiling |");
      System.out.println("|---|---|---|---|---|---|");
      PartitionPrimitives p = backend.partitions();
      List<DeviceColumn> key = List.of(batch.column(0));
      for (int partitions : new int[] {200, 4096}) {
        // reads the key (8 B) and the validity, writes the id (4 B)
        double ms = clock.median(REPEAT, () -> p.hashPartitionIds(key, rows, partitions, ids, stream));
        row("partition ids", partitions, ms, rows, 12.0 * rows, ceiling);
        // count pass reads ids (4 B); scatter reads ids and writes the order (8 B)
        ms = clock.median(REPEAT, () -> p.groupByPartition(ids, rows, partitions, order, stream));
        row("stable grouping", partitions, ms, rows, 12.0 * rows, ceiling);
        // the above, then the gather: reads the order, 24 B of each row's values, writes them
        ms = clock.median(REPEAT, () -> {
          try (PartitionedBatch grouped = PartitionedBatch.hash(backend, batch, new int[] {0}, partitions, stream)) {
            stream.synchronize();
          }
        });
        row("whole partitioning", partitions, ms, rows, 24.0 * rows + 4.0 * rows + 48.0 * rows + 2.0 * rows / 8,
            ceiling);
      }
    }
  }

  private static void row(String step, int partitions, double ms, int rows, double bytes, double ceiling) {
    double gbs = bytes / ms / 1e6;
    System.out.printf("| %s | %d | %.2f | %.0f | %.0f | %.0f%% |%n", step, partitions, ms, rows / ms / 1e3, gbs,
        100 * gbs / ceiling);
  }
}
