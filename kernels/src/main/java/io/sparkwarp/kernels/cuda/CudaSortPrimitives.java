package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.sort.PackedKeys;
import io.sparkwarp.kernels.sort.SortPrimitives;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;

/**
 * {@link SortPrimitives} as launches of {@code sort.cu} and the grouping of {@code grouping.cu}; the pair passes are
 * sort.cu's instantiations of the grouping's block path, planned by {@link CudaStableGrouping#groupBlocks}.
 */
final class CudaSortPrimitives implements SortPrimitives {
  private final CudaStableGrouping grouping;
  private final CudaKernel statistics;
  private final CudaKernel digits;
  private final CudaKernel nullDigits;
  private final CudaKernel ranks;
  private final CudaKernel rowsAt;
  private final CudaKernel pairsCount;
  private final CudaKernel pairsScatter;
  private final CudaKernel pairsCountKeys;
  private final CudaKernel pairsScatterKeys;

  CudaSortPrimitives(CudaModule module, CudaStableGrouping grouping) {
    this.grouping = grouping;
    statistics = module.kernel("sw_sort_key_stats");
    digits = module.kernel("sw_sort_digits");
    nullDigits = module.kernel("sw_sort_null_digits");
    ranks = module.kernel("sw_sort_ranks");
    rowsAt = module.kernel("sw_sort_rows_at");
    pairsCount = module.kernel("sw_sort_pairs_count");
    pairsScatter = module.kernel("sw_sort_pairs_scatter");
    pairsCountKeys = module.kernel("sw_sort_pairs_count_keys");
    pairsScatterKeys = module.kernel("sw_sort_pairs_scatter_keys");
  }

  @Override
  public void keyStatistics(DeviceColumn key, int rows, DeviceBuffer stats, int at, DeviceStream stream) {
    SortPrimitives.checkStatisticsArguments(key, rows, stats, at);
    if (rows == 0) return;
    // whole warps: the kernel reduces each warp's lanes with full-mask shuffles
    statistics.launchGridStride(rows, CudaStream.of(stream), column(key).i64(rows).pointer(stats, 8L * at));
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
  public void pairPass(PackedKeys keys, DeviceBuffer words, DeviceBuffer rowIds, int rows, int shift, int bits,
      DeviceBuffer wordsOut, DeviceBuffer rowIdsOut, DeviceStream stream) {
    SortPrimitives.checkPairArguments(keys, words, rowIds, rows, shift, bits, wordsOut, rowIdsOut);
    if (rows == 0) return;
    Consumer<KernelArgs> payload = args -> orderOrNull(orderOrNull(args, rowIds), wordsOut).pointer(rowIdsOut);
    if (words == null) {
      byte[] packed = packedKeys(keys);
      grouping.groupBlocks(rows, 1 << bits, pairsCountKeys, pairsScatterKeys,
          CudaStableGrouping.PAIR_SCATTER_SHARED_BYTES, args -> args.struct(packed).i32(shift), payload, null, stream);
    } else {
      grouping.groupBlocks(rows, 1 << bits, pairsCount, pairsScatter, CudaStableGrouping.PAIR_SCATTER_SHARED_BYTES,
          args -> args.pointer(words).i32(shift), payload, null, stream);
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
      b.putLong(at + 8, field.column().validity().address());
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

  private static KernelArgs orderOrNull(KernelArgs args, DeviceBuffer order) {
    return order == null ? args.address(0) : args.pointer(order);
  }
}
