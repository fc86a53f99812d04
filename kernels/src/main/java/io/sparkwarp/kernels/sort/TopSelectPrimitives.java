package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * The selection a top-N makes before it sorts ({@link TopSelect}): each row's prefix of the first sort key, byte
 * histograms of the prefixes, and the rows at or below a cutoff prefix. A prefix is an unsigned 64-bit word: its top
 * bit places the nulls (0 for the rows that sort first by nullness), the 63 below it are the highest bits of the
 * value's sortable key (sort_keys.cuh; the first 8 bytes of a string or binary, big-endian, 0 past its end),
 * left-aligned and complemented when descending; a null's are 0. So a row that sorts strictly before another never
 * has a larger prefix. CUDA: {@code select_top.cu}.
 */
public interface TopSelectPrimitives {
  /** The buckets of a histogram: one byte of the prefixes. */
  int BUCKETS = 256;

  /** prefixes[i] (uint64) = the prefix of row i of {@code key}, for rows [0, rows). */
  void prefixes(DeviceColumn key, boolean ascending, boolean nullsFirst, int rows, DeviceBuffer prefixes,
      DeviceStream stream);

  /**
   * The {@link #BUCKETS} counts of byte {@code (prefix >>> shift) & 0xFF} over the rows whose prefix agrees with
   * {@code pinned} above bit {@code shift + 8} (all rows when shift is 56). Synchronises the stream to read them.
   *
   * @param shift 0, 8, ..., 56
   */
  int[] histogram(DeviceBuffer prefixes, int rows, int shift, long pinned, DeviceStream stream);

  /**
   * Writes the ids (int32, ascending) of the rows whose prefix is at or below {@code cutoff}, unsigned, into {@code
   * rowIds}, which holds room for all of them (the caller counted them from the histograms).
   */
  void candidates(DeviceBuffer prefixes, int rows, long cutoff, DeviceBuffer rowIds, DeviceStream stream);

  /** The argument checks both backends make before {@link #prefixes}. */
  static void checkPrefixArguments(DeviceColumn key, int rows, DeviceBuffer prefixes) {
    if (rows < 0 || key.rowCount() < rows) {
      throw new IllegalArgumentException(rows + " rows of a key column of " + key.rowCount());
    }
    prefixes.checkRange(0, 8L * rows);
  }

  /** The argument checks both backends make before {@link #histogram}. */
  static void checkHistogramArguments(DeviceBuffer prefixes, int rows, int shift) {
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    if (shift < 0 || shift > 56 || shift % 8 != 0) throw new IllegalArgumentException("shift " + shift);
    prefixes.checkRange(0, 8L * rows);
  }
}
