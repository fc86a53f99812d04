package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceReadback;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link SortPrimitives#keyStatistics} found in one key column, read back to plan the passes: which bytes of
 * the sortable key vary among the valid rows, the longest string, the count of nulls.
 */
record KeyStatistics(long onesLow, long onesHigh, long zerosLow, long zerosHigh, long longest, long nulls) {
  /** The statistics of every key of {@code batch}, in key order: one launch per key, one read-back for all. */
  static List<KeyStatistics> read(Backend backend, DeviceBatch batch, List<SortKey> keys, DeviceStream stream) {
    long[] all = launchAndRead(backend, batch, keys, true, stream);
    List<KeyStatistics> result = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      int w = k * SortPrimitives.STATISTICS_WORDS;
      result.add(new KeyStatistics(all[w], all[w + 1], all[w + 2], all[w + 3], all[w + 4], all[w + 5]));
    }
    return result;
  }

  /**
   * Statistics of fixed-width keys that take every bit of their sortable values as varying, with their null counts
   * read from the validity bits alone ({@link SortPrimitives#nullCount}): for keys that fit one word at their full
   * width ({@link PackedKeys#fitAtFullWidth}), whose passes over bits that never vary the digit histograms find
   * instead, so that no read of the values precedes them.
   */
  static List<KeyStatistics> nullsOnly(Backend backend, DeviceBatch batch, List<SortKey> keys, DeviceStream stream) {
    long[] all = launchAndRead(backend, batch, keys, false, stream);
    List<KeyStatistics> result = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      int bits = PackedKeys.fullBits(batch.column(keys.get(k).column()).type());
      long values = bits == 64 ? -1L : (1L << bits) - 1;
      result.add(new KeyStatistics(values, 0, values, 0, 0, all[k * SortPrimitives.STATISTICS_WORDS + 5]));
    }
    return result;
  }

  private static long[] launchAndRead(Backend backend, DeviceBatch batch, List<SortKey> keys, boolean values,
      DeviceStream stream) {
    int words = SortPrimitives.STATISTICS_WORDS;
    try (DeviceBuffer stats = backend.allocate(8L * words * keys.size(), stream)) {
      backend.fill(stats, 0, stats.size(), (byte) 0, stream);
      for (int k = 0; k < keys.size(); k++) {
        DeviceColumn key = batch.column(keys.get(k).column());
        if (values) {
          backend.sorts().keyStatistics(key, batch.rowCount(), stats, k * words, stream);
        } else {
          backend.sorts().nullCount(key, batch.rowCount(), stats, k * words, stream);
        }
      }
      return DeviceReadback.longs(backend, stats, words * keys.size(), stream);
    }
  }

  /** Whether byte {@code b} of the sortable key takes more than one value among the valid rows. */
  boolean varies(int b) {
    long varying = b < 8 ? onesLow & zerosLow : onesHigh & zerosHigh;
    return ((varying >>> (8 * (b & 7))) & 0xFF) != 0;
  }
}
