package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.sort.PackedKeys;
import io.sparkwarp.kernels.sort.SortPrimitives;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * {@link SortPrimitives} as launches of {@code sort.cu} and the grouping of {@code grouping.cu}; the pair passes are
 * one kernel each (onesweep.cuh): a block a tile of {@link #TILE_ROWS}, whose digits' positions come from the
 * histograms of {@link #digitCounts} and the counts its predecessors publish in a look-back array.
 */
final class CudaSortPrimitives implements SortPrimitives {
  /** Threads of a pair pass's and a histogram's block (block_grouping::THREADS). */
  private static final int THREADS = 256;
  /** Rows of a pair pass's tile (block_grouping::CHUNK): a block each. */
  private static final int TILE_ROWS = 4096;
  /** Dynamic shared memory: sizeof onesweep::CountsShared, and PassShared of the pairs (8 bytes staged a row). */
  private static final int COUNTS_SHARED_BYTES = SortPrimitives.MAX_PASSES * SortPrimitives.DIGIT_CELLS * 4;
  private static final int PASS_SHARED_BYTES = 54312;
  /** Bytes of onesweep::DigitPlan. */
  private static final int DIGIT_PLAN_BYTES = 72;

  private final CudaBackend backend;
  private final CudaStableGrouping grouping;
  private final CudaKernel statistics;
  private final CudaKernel nullCount;
  private final CudaKernel digits;
  private final CudaKernel nullDigits;
  private final CudaKernel ranks;
  private final CudaKernel rowsAt;
  private final CudaKernel digitCounts;
  private final CudaKernel digitCountsKeys;
  private final CudaKernel pairs;
  private final CudaKernel pairsKeys;

  CudaSortPrimitives(CudaBackend backend, CudaModule module, CudaStableGrouping grouping) {
    this.backend = backend;
    this.grouping = grouping;
    statistics = module.kernel("sw_sort_key_stats");
    nullCount = module.kernel("sw_sort_null_count");
    digits = module.kernel("sw_sort_digits");
    nullDigits = module.kernel("sw_sort_null_digits");
    ranks = module.kernel("sw_sort_ranks");
    rowsAt = module.kernel("sw_sort_rows_at");
    digitCounts = module.kernel("sw_sort_digit_counts");
    digitCountsKeys = module.kernel("sw_sort_digit_counts_keys");
    pairs = module.kernel("sw_sort_pairs");
    pairsKeys = module.kernel("sw_sort_pairs_keys");
    pairs.allowSharedMemory(PASS_SHARED_BYTES);
    pairsKeys.allowSharedMemory(PASS_SHARED_BYTES);
  }

  @Override
  public void keyStatistics(DeviceColumn key, int rows, DeviceBuffer stats, int at, DeviceStream stream) {
    SortPrimitives.checkStatisticsArguments(key, rows, stats, at);
    if (rows == 0) return;
    // whole warps: the kernel reduces each warp's lanes with full-mask shuffles
    statistics.launchGridStride(rows, CudaStream.of(stream), column(key).i64(rows).pointer(stats, 8L * at));
  }

  @Override
  public void nullCount(DeviceColumn key, int rows, DeviceBuffer stats, int at, DeviceStream stream) {
    SortPrimitives.checkStatisticsArguments(key, rows, stats, at);
    if (rows == 0) return;
    // a thread a validity word, whole warps as above
    nullCount.launchGridStride((rows + 31) / 32, CudaStream.of(stream),
        new KernelArgs().pointer(key.validity()).i64(rows).pointer(stats, 8L * (at + 5)));
  }

  @Override
  public void digits(DeviceColumn key, int rows, DeviceBuffer order, int position, boolean ascending,
      DeviceBuffer digits, DeviceStream stream) {
    SortPrimitives.checkDigitArguments(key, rows, order, position, digits);
    if (rows == 0) return;
    KernelArgs args = orderOrNull(column(key), order).i64(rows).i32(position).i32(ascending ? 0 : 1).pointer(digits);
    this.digits.launchGridStride(rows, CudaStream.of(stream), args);
  }

  @Override
  public void nullDigits(DeviceColumn key, int rows, DeviceBuffer order, boolean nullsFirst, DeviceBuffer digits,
      DeviceStream stream) {
    SortPrimitives.checkDigitArguments(key, rows, order, NULLS, digits);
    if (rows == 0) return;
    KernelArgs args = orderOrNull(new KernelArgs().pointer(key.validity()), order).i64(rows).i32(nullsFirst ? 1 : 0)
        .pointer(digits);
    nullDigits.launchGridStride(rows, CudaStream.of(stream), args);
  }

  @Override
  public void groupByDigit(DeviceBuffer digits, int rows, int buckets, DeviceBuffer order, DeviceBuffer out,
      DeviceStream stream) {
    SortPrimitives.checkGroupArguments(digits, rows, buckets, order, out);
    if (rows > 0) grouping.group(digits, rows, buckets, order, out, null, stream);
  }

  @Override
  public void digitCounts(PackedKeys keys, DeviceBuffer words, int rows, List<PackedKeys.Pass> passes,
      DeviceBuffer counts, DeviceBuffer packed, DeviceStream stream) {
    SortPrimitives.checkCountArguments(keys, words, rows, passes, counts, packed);
    backend.fill(counts, 0, 4L * DIGIT_CELLS * passes.size(), (byte) 0, stream);
    if (rows == 0) return;
    CudaKernel kernel = words == null ? digitCountsKeys : digitCounts;
    // as many blocks as run at once: each adds its 256 counts a pass to global memory once, at its end
    long resident = (long) Math.max(1, kernel.residentBlocksPerSm(THREADS, COUNTS_SHARED_BYTES))
        * backend.context().device().multiprocessors();
    int blocks = (int) Math.min(resident, (rows + TILE_ROWS - 1L) / TILE_ROWS);
    KernelArgs args = words == null ? new KernelArgs().struct(packedKeys(keys)) : new KernelArgs().pointer(words);
    args.i64(rows).struct(digitPlan(passes)).pointer(counts);
    if (words == null) orderOrNull(args, packed);
    kernel.launch(blocks, THREADS, COUNTS_SHARED_BYTES, CudaStream.of(stream), args);
  }

  @Override
  public void pairPass(PackedKeys keys, DeviceBuffer words, DeviceBuffer rowIds, int rows, int shift, int bits,
      DeviceBuffer counts, int pass, DeviceBuffer wordsOut, DeviceBuffer rowIdsOut, DeviceStream stream) {
    SortPrimitives.checkPairArguments(keys, words, rowIds, rows, shift, bits, counts, pass, wordsOut, rowIdsOut);
    if (rows == 0) return;
    int tiles = (rows + TILE_ROWS - 1) / TILE_ROWS;
    long lookbackBytes = 8L * tiles * DIGIT_CELLS;
    // the look-back words of every (tile, digit), then the tile counter: all zero (not ready, tile 0 next)
    try (DeviceBuffer lookback = backend.allocate(lookbackBytes + 8, stream)) {
      backend.fill(lookback, 0, lookbackBytes + 8, (byte) 0, stream);
      KernelArgs args = words == null ? new KernelArgs().struct(packedKeys(keys)) : new KernelArgs().pointer(words);
      args.i32(shift).i64(rows).i32(1 << bits).pointer(counts, 4L * DIGIT_CELLS * pass).pointer(lookback)
          .pointer(lookback, lookbackBytes);
      orderOrNull(orderOrNull(args, rowIds), wordsOut).pointer(rowIdsOut);
      (words == null ? pairsKeys : pairs).launch(tiles, THREADS, PASS_SHARED_BYTES, CudaStream.of(stream), args);
    }
  }

  @Override
  public void ranks(DeviceBuffer order, int rows, DeviceBuffer ranks, DeviceStream stream) {
    SortPrimitives.checkRanksArguments(order, rows, ranks);
    if (rows > 0) this.ranks.launchGridStride(rows, CudaStream.of(stream), new KernelArgs().pointer(order).i64(rows)
        .pointer(ranks));
  }

  @Override
  public void rowsAt(DeviceColumn positions, DeviceBuffer order, int rows, DeviceBuffer rowIds, DeviceStream stream) {
    SortPrimitives.checkRowsAtArguments(positions, order, rows, rowIds);
    int count = positions.rowCount();
    if (count == 0) return;
    KernelArgs args = new KernelArgs().pointer(positions.data()).pointer(positions.validity()).i64(count)
        .pointer(order).i64(rows).pointer(rowIds);
    rowsAt.launchGridStride(count, CudaStream.of(stream), args);
  }

  /** The (kind, data, validity, offsets) arguments of a key column; only strings and binaries have offsets. */
  private static KernelArgs column(DeviceColumn key) {
    KernelArgs args = new KernelArgs().i32(key.type().kind().ordinal()).pointer(key.data()).pointer(key.validity());
    return key.type().isVariableWidth() ? args.pointer(key.offsets()) : args.address(0);
  }

  /** Bytes of sort_keys.cuh's PackedField and PackedKeys. */
  private static final int FIELD_BYTES = 48;
  private static final int PACKED_KEYS_BYTES = 8 + PackedKeys.MAX_FIELDS * FIELD_BYTES;

  /** sort_keys.cuh's PackedKeys of {@code keys}, little-endian: the count, then each field at 8 + 48 f. */
  private static byte[] packedKeys(PackedKeys keys) {
    ByteBuffer b = ByteBuffer.allocate(PACKED_KEYS_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, keys.fields().size());
    for (int f = 0; f < keys.fields().size(); f++) {
      PackedKeys.Field field = keys.fields().get(f);
      int at = 8 + FIELD_BYTES * f;
      b.putLong(at, field.column().data().address());
      b.putLong(at + 8, field.anyNull() ? field.column().validity().address() : 0L);  // null: no row is
      b.putInt(at + 16, field.column().type().kind().ordinal());
      b.putInt(at + 20, field.low());
      b.putInt(at + 24, field.width());
      b.putInt(at + 28, field.shift());
      b.putInt(at + 32, field.descending() ? 1 : 0);
      b.putInt(at + 36, field.nullFlag() ? 1 : 0);
      b.putInt(at + 40, field.nullsFirst() ? 1 : 0);
    }
    return b.array();
  }

  /** onesweep::DigitPlan of {@code passes}, little-endian: the count, the shifts, the widths. */
  private static byte[] digitPlan(List<PackedKeys.Pass> passes) {
    ByteBuffer b = ByteBuffer.allocate(DIGIT_PLAN_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, passes.size());
    for (int p = 0; p < passes.size(); p++) {
      b.putInt(4 + 4 * p, passes.get(p).shift());
      b.putInt(4 + 4 * (SortPrimitives.MAX_PASSES + p), passes.get(p).bits());
    }
    return b.array();
  }

  private static KernelArgs orderOrNull(KernelArgs args, DeviceBuffer order) {
    return order == null ? args.address(0) : args.pointer(order);
  }
}
