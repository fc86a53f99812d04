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
 * Group-by aggregation on the device at both ends of the group count (issue 14). Two tables:
 * <ul>
 *   <li>device-resident rows of (long key, long, double) whose keys take 4, 10^3, 10^6 or 10^8 distinct values (TPC-H
 *       Q1 has 4 groups, Q18's order keys 15 M), and no keys at all, aggregated by count(*), sum(long), sum(double),
 *       min(double) and max(long);
 *   <li>TPC-H Q1's shape: (long key, quantity, price, discount, tax), decimal(12, 2) columns, 4 groups and no keys,
 *       aggregated by Q1's 8 aggregates as 11 device aggregates: exact sums of the decimals and of the products
 *       price x discount and price x discount x tax, the averages as sums and counts, count(*).
 * </ul>
 * CUDA events around the whole call (group table, accumulation, result batch made, overflow flags read back), one
 * warm-up, median of 5. GB/s count the input bytes of a row (8 a column, the key included) against the device copy
 * ceiling measured in the same run. Without keys the call is the accumulation kernel and the finalisation alone.
 *
 * <p>Run on a GPU machine: {@code run.sh main io.sparkwarp.kernels.aggregate.AggregateBenchmark [rows]} (default
 * 100 M).
 */
public final class AggregateBenchmark {
  private static final int REPEAT = 5;
  private static final DeviceType DEC_12_2 = DeviceType.decimal(12, 2);

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000_000;
    try (Backend backend = Backends.open(BackendKind.CUDA, BackendOptions.defaults());
        DeviceStream stream = backend.newStream();
        BenchmarkClock clock = BenchmarkClock.of(backend, stream)) {
      System.out.println("device: " + backend.description() + ", " + rows + " rows");
      double ceiling = clock.copyGbs(backend, stream, 1L << 30, REPEAT);
      System.out.printf("device copy ceiling: %.0f GB/s (bytes read + written)%n", ceiling);
      try (DeviceColumn longs = BenchmarkColumns.random(backend, DeviceType.LONG, rows, 0, 2, stream);
          DeviceColumn doubles = BenchmarkColumns.random(backend, DeviceType.DOUBLE, rows, 0, 3, stream)) {
        System.out.println("\n(long key, long, double): count(*), sum(long), sum(double), min(double), max(long)");
        table(backend, stream, clock, ceiling, rows, List.of(longs, doubles),
            List.of(Aggregate.countAll(), Aggregate.sum(0, DeviceType.LONG), Aggregate.sum(1, DeviceType.DOUBLE),
                Aggregate.min(1, DeviceType.DOUBLE), Aggregate.max(0, DeviceType.LONG)),
            new long[] {0, 4, 1_000, 1_000_000, 100_000_000});
      }
      // Q1's value ranges: quantity 1..50, price up to 100,000.00, discount 0..0.10, tax 0..0.08
      try (DeviceColumn quantity = BenchmarkColumns.random(backend, DEC_12_2, rows, 5_000, 4, stream);
          DeviceColumn price = BenchmarkColumns.random(backend, DEC_12_2, rows, 10_000_000, 5, stream);
          DeviceColumn discount = BenchmarkColumns.random(backend, DEC_12_2, rows, 11, 6, stream);
          DeviceColumn tax = BenchmarkColumns.random(backend, DEC_12_2, rows, 9, 7, stream)) {
        System.out.println("\nTPC-H Q1 (long key, quantity, price, discount, tax as decimal(12, 2)): sum(quantity), "
            + "sum(price), sum(price x discount), sum(price x discount x tax), avg of quantity, price and discount "
            + "as sum and count, count(*)");
        DeviceType sum = DeviceType.decimal(22, 2);
        table(backend, stream, clock, ceiling, rows, List.of(quantity, price, discount, tax),
            List.of(Aggregate.sum(0, sum), Aggregate.sum(1, sum),
                Aggregate.sumOfProducts(1, List.of(2), DeviceType.decimal(38, 4)),
                Aggregate.sumOfProducts(1, List.of(2, 3), DeviceType.decimal(38, 6)),
                Aggregate.sum(0, sum).identityWhenEmpty(), Aggregate.count(0),
                Aggregate.sum(1, sum).identityWhenEmpty(), Aggregate.count(1),
                Aggregate.sum(2, sum).identityWhenEmpty(), Aggregate.count(2), Aggregate.countAll()),
            new long[] {0, 4});
      }
    }
  }

  /** One table: a line per group count (0: no keys) of aggregating {@code inputs} by {@code aggregates}. */
  private static void table(Backend backend, DeviceStream stream, BenchmarkClock clock, double ceiling, int rows,
      List<DeviceColumn> inputs, List<Aggregate> aggregates, long[] groupCounts) {
    System.out.println("| groups | ms | M rows/s | GB/s | of copy ceiling |");
    System.out.println("|---|---|---|---|---|");
    for (long groups : groupCounts) {
      try (DeviceColumn keys = groups == 0 ? null
          : BenchmarkColumns.random(backend, DeviceType.LONG, rows, groups, 1, stream)) {
        List<DeviceColumn> keyList = keys == null ? List.of() : List.of(keys);
        double ms = clock.median(REPEAT, () -> {
          try (AggregateResult r = backend.aggregates().aggregate(rows, keyList, inputs, aggregates, stream)) {
            stream.synchronize();
          }
        });
        double gbs = 8.0 * (keyList.size() + inputs.size()) * rows / ms / 1e6;
        System.out.printf("| %s | %.2f | %.0f | %.0f | %.0f%% |%n", groups == 0 ? "none" : Long.toString(groups), ms,
            rows / ms / 1e3, gbs, 100 * gbs / ceiling);
      }
    }
  }
}
