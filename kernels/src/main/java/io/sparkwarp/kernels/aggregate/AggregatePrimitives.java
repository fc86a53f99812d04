package io.sparkwarp.kernels.aggregate;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.UnsupportedTypeException;
import java.util.List;

/**
 * Group-by hash aggregation on the device. CUDA: {@code aggregate.cu}; host: a reference over Java maps.
 *
 * <p>Grouping follows Spark: null keys form a group of their own, floats and doubles group NaN with NaN and -0.0
 * with 0.0, strings and binaries by their bytes. A group's key is the key of one of its rows.
 */
public interface AggregatePrimitives {
  /** Most key columns one aggregation takes (the hash table's keys, join_keys.cuh). */
  int MAX_KEYS = 8;
  /** Most aggregates one aggregation computes (aggregate_spec.cuh MAX_AGGREGATES). */
  int MAX_AGGREGATES = 24;

  /**
   * Aggregates the rows of {@code keys} and {@code inputs} (not owned, left open).
   *
   * @param rows the rows aggregated, which every column has: given apart, because count(*) over a batch of no
   *     columns (a projection of nothing) still counts its rows
   * @param keys up to {@link #MAX_KEYS} key columns; none: one global group, present even without rows
   * @param inputs the columns aggregates read, by index
   * @throws io.sparkwarp.kernels.batch.UnsupportedTypeException for a key or aggregate type the device does not
   *     aggregate
   */
  AggregateResult aggregate(int rows, List<DeviceColumn> keys, List<DeviceColumn> inputs,
      List<Aggregate> aggregates, DeviceStream stream);

  /**
   * Spark's average from its buffer, row by row: null where the count is 0 or null, or the sum null; otherwise sum /
   * count, as a double (a DOUBLE sum) or a decimal rounded half up to the result's scale (a decimal sum of a scale at
   * most the result's, and at most 18 below it), null where it exceeds the result's precision.
   */
  Mean mean(DeviceColumn sum, DeviceColumn count, DeviceType resultType, DeviceStream stream);

  /** Throws unless {@link #mean} takes these arguments. */
  static void checkMean(DeviceColumn sum, DeviceColumn count, DeviceType resultType) {
    DeviceType s = sum.type();
    boolean ok = count.type().kind() == DeviceType.Kind.LONG && sum.rowCount() == count.rowCount()
        && (s.kind() == DeviceType.Kind.DOUBLE ? resultType.kind() == DeviceType.Kind.DOUBLE
            : s.isDecimal() && resultType.isDecimal() && resultType.scale() >= s.scale()
                && resultType.scale() - s.scale() <= 18);
    if (!ok) {
      throw new UnsupportedTypeException("the mean of " + s + " sums and " + count.type() + " counts as " + resultType
          + " is not supported on the device");
    }
  }

  /** Throws unless {@link #aggregate} takes these arguments: the checks both backends make first. */
  static void checkArguments(int rows, List<DeviceColumn> keys, List<DeviceColumn> inputs,
      List<Aggregate> aggregates) {
    if (keys.size() > MAX_KEYS) {
      throw new UnsupportedTypeException("grouping by " + keys.size() + " keys (the device takes up to " + MAX_KEYS
          + ")");
    }
    if (aggregates.size() > MAX_AGGREGATES) {
      throw new UnsupportedTypeException(aggregates.size() + " aggregates in one aggregation (the device takes up to "
          + MAX_AGGREGATES + ")");
    }
    for (DeviceColumn c : keys) {
      if (c.type().kind() == DeviceType.Kind.DECIMAL128) {
        throw new UnsupportedTypeException("grouping by a " + c.type() + " key is not supported on the device");
      }
      checkRows(rows, c);
    }
    for (DeviceColumn c : inputs) checkRows(rows, c);
    for (Aggregate a : aggregates) {
      a.check(a.input() < 0 ? null : inputs.get(a.input()).type(), a.mask() < 0 ? null : inputs.get(a.mask()).type(),
          a.factors().stream().map(f -> inputs.get(f).type()).toList());
    }
  }

  private static void checkRows(int rows, DeviceColumn c) {
    if (c.rowCount() != rows) {
      throw new IllegalArgumentException("an aggregation of " + rows + " rows over a column of " + c.rowCount());
    }
  }
}
