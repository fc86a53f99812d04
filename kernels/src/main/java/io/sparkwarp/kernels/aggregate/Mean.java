package io.sparkwarp.kernels.aggregate;

import io.sparkwarp.kernels.batch.DeviceColumn;

/**
 * Averages computed from sums and counts ({@link AggregatePrimitives#mean}). Owns the column.
 *
 * @param overflowed whether a row's sum was null with a non-zero count (a sum that overflowed) or its quotient
 *     left the result's precision: what raises Spark's error in ANSI mode
 */
public record Mean(DeviceColumn column, boolean overflowed) implements AutoCloseable {
  @Override
  public void close() {
    column.close();
  }
}
