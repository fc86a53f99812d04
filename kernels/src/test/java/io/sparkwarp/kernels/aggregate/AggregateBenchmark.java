package io.sparkwarp.kernels.aggregate;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.BenchmarkClock;
import io.sparkwarp.kernels.testing.BenchmarkColumns;
import java.util.List;

/**
 * Group-by aggregation on the device at both ends of the group count (issue 14): device-resident rows of (long key,
 * long, double) whose keys take 4, 10^3, 10^6 or 10^8 distinct values (TPC-H Q1 has 4 groups, Q18's order keys 15 M),
 * aggregated by count(*), sum(long), sum(double), min(double) and max(long). CUDA events around the whole call (the
 * result batch made and the overflow flags read back), one warm-up, median of 5; GB/s count the 24 input bytes of a
 * row, against the device copy ceiling measured in the same run.
 *
 * <p>Run on a GPU machine: {@code run.sh main io.sparkwarp.kernels.aggregate.AggregateBenchmark [rows]} (default
 * 100 M).
 */
public final class AggregateBenchmark {
  private static final int REPEAT = 5;

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000_000;
    try (Backend backend = Backends.open(BackendKind.CUDA, BackendOptions.defaults());
        DeviceStream stream = backend.newStream();
        BenchmarkClock clock = BenchmarkClock.of(backend, stream);
        DeviceColumn longs = BenchmarkColumns.random(backend, DeviceType.LONG, rows, 0, 2, stream);
        DeviceColumn doubles = BenchmarkColumns.random(backend, DeviceType.DOUBLE, rows, 0, 3, stream)) {
      System.out.println("device: " + backend.description() + ", " + rows + " rows of (long key, long, double)");
      double ceiling = clock.copyGbs(backend, stream, 1L << 30, REPEAT);
      System.out.printf("device copy ceiling: %.0f GB/s (bytes read + written)%n%n", ceiling);
      System.out.println("| groups | ms | M rows/s | GB/s | of copy ceiling |");
      System.out.println("|---|---|---|---|---|");
      List<Aggregate> aggregates = List.of(Aggregate.countAll(), Aggregate.sum(0, DeviceType.LONG),
          Aggregate.sum(1, DeviceType.DOUBLE), Aggregate.min(1, DeviceType.DOUBLE), Aggregate.max(0, DeviceType.LONG));
      for (long groups : new long[] {4, 1_000, 1_000_000, 100_000_000}) {
        try (DeviceColumn keys = BenchmarkColumns.random(backend, DeviceType.LONG, rows, groups, 1, stream)) {
          double ms = clock.median(REPEAT, () -> {
            try (AggregateResult r = backend.aggregates().aggregate(rows, List.of(keys), List.of(longs, doubles),
                aggregates, stream)) {
              stream.synchronize();
            }
          });
          double gbs = 24.0 * rows / ms / 1e6;
          System.out.printf("| %d | %.2f | %.0f | %.0f | %.0f%% |%n", groups, ms, rows / ms / 1e3, gbs,
              100 * gbs / ceiling);
        }
      }
    }
  }
}
