package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceReadback;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A stable sort of a device batch by several keys in Spark's order (every {@code DeviceType.Kind}: signed integers,
 * decimals by value, floats as SQLOrderingUtil, strings and binaries as unsigned bytes), on either backend. It is an
 * LSD radix sort; one read-back of key statistics plans the passes, the rest stays on the device. Keys that fit one
 * 64-bit word ({@link PackedKeys}: fixed-width keys whose varying bits and null flags add up to at most 64) are
 * packed into it by the first pass, and every pass groups (word, row id) pairs by a digit of the word, moving both;
 * other keys take {@link DigitPass}es, each a digit per row of the current order ({@link SortPrimitives}) and a
 * stable grouping of that order by it.
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

  private static void sortInto(Backend backend, DeviceBatch batch, List<SortKey> keys, DeviceBuffer order,
      DeviceStream stream) {
    if (PackedKeys.fitAtFullWidth(batch, keys)) {
      // no read of the values first (a 64th of it for int64 keys): the histograms tell the passes that change nothing
      PackedKeys full = PackedKeys.plan(batch, keys, KeyStatistics.nullsOnly(backend, batch, keys, stream));
      if (full != null) {  // else null flags took it past 64 bits
        sortPairs(backend, batch, full, true, order, stream);
        return;
      }
    }
    List<KeyStatistics> statistics = KeyStatistics.read(backend, batch, keys, stream);
    PackedKeys packed = PackedKeys.plan(batch, keys, statistics);
    if (packed != null) {
      sortPairs(backend, batch, packed, false, order, stream);
    } else {
      sortDigits(backend, batch, keys, statistics, order, stream);
    }
  }

  /**
   * Runs the pair passes of {@code packed}: the digit histograms of all of them first, in one read of the key
   * columns, which also writes the packed words where there are three passes or more (with fewer the first pass
   * packs them from the key columns itself); each pass writes (word, row id) pairs into the other of
   * two pair buffers, the last only the row ids, into {@code order}; or, where a last pass places the first key's
   * nulls, into a spare that pass groups into {@code order}. With {@code skipTies} (words packed at full width),
   * the histograms are read back first and a pass whose digit is the same in every row is left out.
   */
  private static void sortPairs(Backend backend, DeviceBatch batch, PackedKeys packed, boolean skipTies,
      DeviceBuffer order, DeviceStream stream) {
    int rows = batch.rowCount();
    List<PackedKeys.Pass> passes = packed.passes();
    int planned = passes.size();
    SortPrimitives sorts = backend.sorts();
    SortKey nullPass = packed.nullPass();
    try (DeviceBuffer counts = backend.allocate(4L * SortPrimitives.DIGIT_CELLS * planned, stream);
        DeviceBuffer spare = planned > 1 || nullPass != null ? backend.allocate(4L * rows, stream) : null;
        DeviceBuffer wordsA = planned > 1 ? backend.allocate(8L * rows, stream) : null;
        DeviceBuffer wordsB = planned > 2 ? backend.allocate(8L * rows, stream) : null) {
      // the ids of the pairs' last pass go where the null pass, if any, reads them
      DeviceBuffer last = nullPass != null ? spare : order;
      DeviceBuffer other = nullPass != null ? order : spare;
      // the histograms pack the words into the buffer the first pass does not write, where there are three passes
      // or more (the first pass packing them again from the key columns costs a third more than a pass over words)
      DeviceBuffer words = wordsB;
      DeviceBuffer ids = null;  // the identity order
      sorts.digitCounts(packed, null, rows, passes, counts, words, stream);
      int[] run = skipTies ? changing(backend, counts, planned, rows, stream) : IntStream.range(0, planned).toArray();
      int count = run.length;
      for (int p = 0; p < count; p++) {
        PackedKeys.Pass pass = passes.get(run[p]);
        DeviceBuffer idsOut = (count - 1 - p) % 2 == 0 ? last : other;
        DeviceBuffer wordsOut = p == count - 1 ? null : p % 2 == 0 ? wordsA : wordsB;
        sorts.pairPass(words == null ? packed : null, words, ids, rows, pass.shift(), pass.bits(), counts, run[p],
            wordsOut, idsOut, stream);
        words = wordsOut;
        ids = idsOut;
      }
      if (nullPass != null) {
        // the digits take the words' place: 4 of their 8 bytes a row (planned is 1 here only without them)
        try (DeviceBuffer own = wordsA == null ? backend.allocate(4L * rows, stream) : null) {
          DeviceBuffer digits = own != null ? own : wordsA;
          sorts.nullDigits(batch.column(nullPass.column()), rows, ids, nullPass.nullsFirst(), digits, stream);
          sorts.groupByDigit(digits, rows, 2, ids, order, stream);
        }
      }
    }
  }

  /**
   * The passes among the {@code planned} histograms of {@code counts} whose digit differs between rows, in order; the
   * first alone where none does (one pass still writes the order, the identity).
   */
  private static int[] changing(Backend backend, DeviceBuffer counts, int planned, int rows, DeviceStream stream) {
    int cells = SortPrimitives.DIGIT_CELLS;
    long[] all = DeviceReadback.ints(backend, counts, 0, cells * planned, stream);
    int[] run = IntStream.range(0, planned)
        .filter(p -> IntStream.range(0, cells).noneMatch(d -> all[p * cells + d] == rows)).toArray();
    return run.length > 0 ? run : new int[] {0};
  }

  /** Runs the digit passes, alternating between {@code order} and a spare so that the last one writes {@code order}. */
  private static void sortDigits(Backend backend, DeviceBatch batch, List<SortKey> keys,
      List<KeyStatistics> statistics, DeviceBuffer order, DeviceStream stream) {
    int rows = batch.rowCount();
    List<DigitPass> passes = DigitPass.plan(batch, keys, statistics);
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
