package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.List;

/**
 * A stable sort of a device batch by several keys in Spark's order (every {@code DeviceType.Kind}: signed integers,
 * decimals by value, floats as SQLOrderingUtil, strings and binaries as unsigned bytes), on either backend. It is an
 * LSD radix sort of {@link DigitPass}es, each a digit per row ({@link SortPrimitives}) and a stable grouping of the
 * current order by it; one read-back of key statistics plans the passes, the rest stays on the device.
 */
public final class DeviceSort {
  private DeviceSort() {}

  /**
   * int32 row indices (rowCount of them, caller owns the buffer) that order the batch's rows by keys, the first key
   * most significant; stable (equal rows keep their input order).
   */
  public static DeviceBuffer order(Backend backend, DeviceBatch batch, List<SortKey> keys, DeviceStream stream) {
    checkKeys(batch, keys);
    int rows = batch.rowCount();
    DeviceBuffer order = backend.allocate(4L * Math.max(1, rows), stream);
    try {
      if (rows > 0) sortInto(backend, batch, keys, order, stream);
      return order;
    } catch (RuntimeException e) {
      order.close();
      throw e;
    }
  }

  /** The batch's rows in that order, as a new batch (input left open). */
  public static DeviceBatch sort(Backend backend, DeviceBatch batch, List<SortKey> keys, DeviceStream stream) {
    return top(backend, batch, keys, batch.rowCount(), stream);
  }

  /** The first min(limit, rowCount) rows of that order, as a new batch (input left open): a top-N. */
  public static DeviceBatch top(Backend backend, DeviceBatch batch, List<SortKey> keys, int limit,
      DeviceStream stream) {
    if (limit < 0) throw new IllegalArgumentException("negative limit " + limit);
    // the order goes back to the stream-ordered pool after the gather that reads it
    try (DeviceBuffer order = order(backend, batch, keys, stream)) {
      return backend.joins().gather(batch, order, Math.min(limit, batch.rowCount()), stream);
    }
  }

  /** Runs the passes, alternating between {@code order} and a spare so that the last one writes {@code order}. */
  private static void sortInto(Backend backend, DeviceBatch batch, List<SortKey> keys, DeviceBuffer order,
      DeviceStream stream) {
    int rows = batch.rowCount();
    List<DigitPass> passes = DigitPass.plan(batch, keys, KeyStatistics.read(backend, batch, keys, stream));
    SortPrimitives sorts = backend.sorts();
    try (DeviceBuffer digits = backend.allocate(4L * rows, stream);
        DeviceBuffer spare = passes.size() > 1 ? backend.allocate(4L * rows, stream) : null) {
      DeviceBuffer current = null;  // the identity order
      for (int p = 0; p < passes.size(); p++) {
        DeviceBuffer next = (passes.size() - 1 - p) % 2 == 0 ? order : spare;
        DigitPass pass = passes.get(p);
        pass.writeDigits(sorts, batch, current, digits, stream);
        sorts.groupByDigit(digits, rows, pass.buckets(), current, next, stream);
        current = next;
      }
    }
  }

  private static void checkKeys(DeviceBatch batch, List<SortKey> keys) {
    if (keys.isEmpty()) throw new IllegalArgumentException("a sort needs at least one key");
    for (SortKey key : keys) {
      if (key.column() < 0 || key.column() >= batch.columnCount()) {
        throw new IllegalArgumentException("sort key column " + key.column() + " of a batch of "
            + batch.columnCount() + " columns");
      }
    }
  }
}
