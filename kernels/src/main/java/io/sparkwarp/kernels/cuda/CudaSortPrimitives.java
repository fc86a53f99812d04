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

  CudaSortPrimitives(CudaModule module, CudaStableGrouping grouping) {
    this.grouping = grouping;
    statistics = module.kernel("sw_sort_key_stats");
    digits = module.kernel("sw_sort_digits");
    nullDigits = module.kernel("sw_sort_null_digits");
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

  /** The (kind, data, validity, offsets) arguments of a key column; only strings and binaries have offsets. */
  private static KernelArgs column(DeviceColumn key) {
    KernelArgs args = new KernelArgs().i32(key.type().kind().ordinal()).pointer(key.data()).pointer(key.validity());
    return key.type().isVariableWidth() ? args.pointer(key.offsets()) : args.address(0);
  }

  private static KernelArgs orderOrNull(KernelArgs args, DeviceBuffer order) {
    return order == null ? args.address(0) : args.pointer(order);
  }
}
