package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.sort.SortPrimitives;

/** {@link SortPrimitives} as launches of {@code sort.cu} and the grouping of {@code grouping.cu}. */
final class CudaSortPrimitives implements SortPrimitives {
  private final CudaStableGrouping grouping;
  private final CudaKernel statistics;
  private final CudaKernel digits;
  private final CudaKernel nullDigits;
  private final CudaKernel ranks;
  private final CudaKernel rowsAt;

  CudaSortPrimitives(CudaModule module, CudaStableGrouping grouping) {
    this.grouping = grouping;
    statistics = module.kernel("sw_sort_key_stats");
    digits = module.kernel("sw_sort_digits");
    nullDigits = module.kernel("sw_sort_null_digits");
    ranks = module.kernel("sw_sort_ranks");
    rowsAt = module.kernel("sw_sort_rows_at");
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

  private static KernelArgs orderOrNull(KernelArgs args, DeviceBuffer order) {
    return order == null ? args.address(0) : args.pointer(order);
  }
}
