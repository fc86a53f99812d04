package io.sparkwarp.kernels.aggregate;

import io.sparkwarp.kernels.batch.DeviceBatch;

/**
 * The groups of an aggregation: one row per group, the key columns then one column per aggregate, in no particular
 * order (without keys, exactly one row, also for empty input). Owns the batch.
 *
 * @param overflowed per aggregate, whether a sum left its result type somewhere (a LONG sum wrapped around, a decimal
 *     sum became null) or a null poisoned a group: what raises Spark's overflow error in ANSI mode
 */
public record AggregateResult(DeviceBatch groups, boolean[] overflowed) implements AutoCloseable {
  public boolean anyOverflow(int aggregate) {
    return overflowed[aggregate];
  }

  @Override
  public void close() {
    groups.close();
  }
}
