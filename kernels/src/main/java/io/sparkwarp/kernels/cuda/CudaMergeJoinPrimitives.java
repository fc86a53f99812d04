package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.join.MergeJoinPrimitives;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceReadback;

/** {@link MergeJoinPrimitives} as launches of {@code merge_join.cu} and the scans of {@code scan.cu}. */
final class CudaMergeJoinPrimitives implements MergeJoinPrimitives {
  /** Entries of the merged (positions, pairs) sequence a block expands per step (merge_join.cu EXPAND_DIAGONAL). */
  static final int DIAGONAL = 2048;

  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel heads;
  private final CudaKernel bounds;
  private final CudaKernel ranges;
  private final CudaKernel expand;

  CudaMergeJoinPrimitives(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    this.scan = new CudaScan(backend, module);
    heads = module.kernel("sw_merge_run_heads");
    bounds = module.kernel("sw_merge_run_bounds");
    ranges = module.kernel("sw_merge_match_ranges");
    expand = module.kernel("sw_merge_expand");
  }

  @Override
  public void matchRanges(JoinKeys keys, DeviceBuffer order, int leftRows, DeviceBuffer counts, DeviceBuffer firsts,
      DeviceBuffer leftMatched, DeviceBuffer rightMatched, DeviceStream stream) {
    MergeJoinPrimitives.checkMatchArguments(keys, order, leftRows, counts, firsts, leftMatched, rightMatched);
    int rows = keys.rowCount();
    if (rows == 0) return;
    CudaStream s = CudaStream.of(stream);
    try (DeviceBuffer runs = backend.allocate(4L * (rows + 1), stream);
        DeviceBuffer runStarts = backend.allocate(4L * rows, stream);
        DeviceBuffer firstRights = backend.allocate(4L * rows, stream)) {
      heads.launchGridStride(rows, s, new KernelArgs().struct(keys.abi()).pointer(order).i64(rows).pointer(runs));
      scan.exclusiveSum(runs, rows, stream);
      backend.fill(firstRights, 0, 4L * rows, (byte) 0xff, stream);
      bounds.launchGridStride(rows, s, new KernelArgs().pointer(order).pointer(runs).i64(rows).i32(leftRows)
          .pointer(runStarts).pointer(firstRights));
      ranges.launchGridStride(rows, s, new KernelArgs().pointer(order).pointer(runs).i64(rows).i32(leftRows)
          .pointer(runStarts).pointer(firstRights).pointer(counts).pointer(firsts).pointer(leftMatched)
          .pointer(rightMatched));
    }
  }

  @Override
  public long matchOffsets(DeviceBuffer counts, int rows, DeviceBuffer offsets, DeviceStream stream) {
    MergeJoinPrimitives.checkOffsetArguments(counts, rows, offsets);
    scan.exclusiveSumWide(counts, rows, offsets, stream);
    return DeviceReadback.longs(backend, offsets, 8L * rows, 1, stream)[0];
  }

  @Override
  public void expand(DeviceBuffer offsets, DeviceBuffer firsts, DeviceBuffer order, int rows, int leftRows,
      long from, int count, DeviceBuffer leftIds, DeviceBuffer rightIds, DeviceStream stream) {
    MergeJoinPrimitives.checkExpandArguments(offsets, firsts, order, rows, leftRows, from, count, leftIds, rightIds);
    if (count == 0) return;
    // a block per DIAGONAL entries of the merged sequence: at most count pairs plus every position
    long shares = (count + (long) rows + DIAGONAL - 1) / DIAGONAL;
    expand.launchGridStride(shares * CudaKernel.BLOCK, CudaStream.of(stream), new KernelArgs().pointer(offsets)
        .pointer(firsts).pointer(order).i64(rows).i32(leftRows).i64(from).i64(count).pointer(leftIds)
        .pointer(rightIds));
  }
}
