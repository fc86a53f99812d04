package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One stable pass of the LSD radix sort: the rows of the current order grouped by one digit of one key, or by
 * nullness ({@code position} {@link SortPrimitives#NULLS}).
 */
record DigitPass(SortKey key, int position, int buckets) {
  /**
   * The passes that sort {@code batch} by {@code keys}, least significant first: the last key's first. Within a key,
   * its value digits from the least significant byte (a string's last position) up, then the null pass. Passes that
   * cannot move a row are left out: bytes every valid row shares, and the null pass of a column with no nulls or
   * only nulls (a null's value digits are all 0, so nulls tie in every value pass).
   */
  static List<DigitPass> plan(DeviceBatch batch, List<SortKey> keys, List<KeyStatistics> statistics) {
    List<DigitPass> passes = new ArrayList<>();
    for (int k = keys.size() - 1; k >= 0; k--) {
      SortKey key = keys.get(k);
      KeyStatistics s = statistics.get(k);
      DeviceType type = batch.column(key.column()).type();
      int buckets = SortPrimitives.buckets(type.kind());
      if (type.isVariableWidth()) {
        for (int p = (int) s.longest() - 1; p >= 0; p--) passes.add(new DigitPass(key, p, buckets));
      } else {
        int bytes = type.isBitPacked() ? 1 : type.width();
        for (int b = 0; b < bytes; b++) {
          if (s.varies(b)) passes.add(new DigitPass(key, b, buckets));
        }
      }
      if (s.nulls() > 0 && s.nulls() < batch.rowCount()) passes.add(new DigitPass(key, SortPrimitives.NULLS, 2));
    }
    // all rows tie: a pass that moves nothing still writes the identity order
    if (passes.isEmpty()) passes.add(new DigitPass(keys.get(0), SortPrimitives.NULLS, 2));
    return passes;
  }

  /** digits[j] = this pass's digit of row order[j] (row j where {@code order} is null). */
  void writeDigits(SortPrimitives sorts, DeviceBatch batch, DeviceBuffer order, DeviceBuffer digits,
      DeviceStream stream) {
    DeviceColumn column = batch.column(key.column());
    if (position == SortPrimitives.NULLS) {
      sorts.nullDigits(column, batch.rowCount(), order, key.nullsFirst(), digits, stream);
    } else {
      sorts.digits(column, batch.rowCount(), order, position, key.ascending(), digits, stream);
    }
  }
}
