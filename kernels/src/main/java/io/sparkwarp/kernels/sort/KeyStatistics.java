package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
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
    int words = SortPrimitives.STATISTICS_WORDS;
    long[] all;
    try (DeviceBuffer stats = backend.allocate(8L * words * keys.size(), stream)) {
      backend.fill(stats, 0, stats.size(), (byte) 0, stream);
      for (int k = 0; k < keys.size(); k++) {
        backend.sorts().keyStatistics(batch.column(keys.get(k).column()), batch.rowCount(), stats, k * words, stream);
      }
      all = DeviceReadback.longs(backend, stats, words * keys.size(), stream);
    }
    List<KeyStatistics> result = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      int w = k * words;
      result.add(new KeyStatistics(all[w], all[w + 1], all[w + 2], all[w + 3], all[w + 4], all[w + 5]));
    }
    return result;
  }

  /** Whether byte {@code b} of the sortable key takes more than one value among the valid rows. */
  boolean varies(int b) {
    long varying = b < 8 ? onesLow & zerosLow : onesHigh & zerosHigh;
    return ((varying >>> (8 * (b & 7))) & 0xFF) != 0;
  }
}
