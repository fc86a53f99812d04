package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.sort.TopSelectPrimitives;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * {@link TopSelectPrimitives} as launches of {@code select_top.cu}; the candidates' mask is compacted by {@code
 * select.cu}'s filter kernels and the scan.
 */
final class CudaTopSelectPrimitives implements TopSelectPrimitives {
  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel prefixes;
  private final CudaKernel histogram;
  private final CudaKernel candidateMask;
  private final CudaKernel selectCounts;
  private final CudaKernel selectRows;

  CudaTopSelectPrimitives(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    scan = new CudaScan(backend, module);
    prefixes = module.kernel("sw_top_prefixes");
    histogram = module.kernel("sw_top_histogram");
    candidateMask = module.kernel("sw_top_candidate_mask");
    selectCounts = module.kernel("sw_select_counts");
    selectRows = module.kernel("sw_select_rows");
  }

  @Override
  public void prefixes(DeviceColumn key, boolean ascending, boolean nullsFirst, int rows, DeviceBuffer out,
      DeviceStream stream) {
    TopSelectPrimitives.checkPrefixArguments(key, rows, out);
    if (rows == 0) return;
    KernelArgs args = new KernelArgs().i32(key.type().kind().ordinal()).pointer(key.data()).pointer(key.validity());
    (key.type().isVariableWidth() ? args.pointer(key.offsets()) : args.address(0)).i64(rows).i32(ascending ? 0 : 1)
        .i32(nullsFirst ? 1 : 0).pointer(out);
    prefixes.launchGridStride(rows, CudaStream.of(stream), args);
  }

  @Override
  public int[] histogram(DeviceBuffer prefixes, int rows, int shift, long pinned, DeviceStream stream) {
    TopSelectPrimitives.checkHistogramArguments(prefixes, rows, shift);
    int[] result = new int[BUCKETS];
    if (rows == 0) return result;
    try (DeviceBuffer counts = backend.allocate(4L * BUCKETS, stream);
        HostBlock host = backend.transferMemory().pool().allocate(4L * BUCKETS)) {
      backend.fill(counts, 0, 4L * BUCKETS, (byte) 0, stream);
      histogram.launchGridStride(rows, 4 * BUCKETS, CudaStream.of(stream), new KernelArgs().pointer(prefixes).i64(rows)
          .i32(shift).i64(pinned).pointer(counts));
      backend.copyDeviceToHost(counts, 0, host.address(), 4L * BUCKETS, stream);
      stream.synchronize();
      for (int b = 0; b < BUCKETS; b++) result[b] = MemoryUtil.getInt(host.address() + 4L * b);
    }
    return result;
  }

  @Override
  public void candidates(DeviceBuffer prefixes, int rows, long cutoff, DeviceBuffer rowIds, DeviceStream stream) {
    TopSelectPrimitives.checkHistogramArguments(prefixes, rows, 0);
    if (rows == 0) return;
    long words = (rows + 31) / 32;
    CudaStream s = CudaStream.of(stream);
    try (DeviceBuffer mask = backend.allocate(4 * words, stream);
        DeviceBuffer wordOffsets = backend.allocate(4 * (words + 1), stream)) {
      candidateMask.launchGridStride(32 * words, s, new KernelArgs().pointer(prefixes).i64(rows).i64(cutoff)
          .pointer(mask));
      selectCounts.launchGridStride(words, s, new KernelArgs().pointer(mask).pointer(mask).i64(words)
          .pointer(wordOffsets));
      scan.exclusiveSum(wordOffsets, words, stream);
      selectRows.launchGridStride(rows, s, new KernelArgs().pointer(mask).pointer(mask).i64(rows).pointer(wordOffsets)
          .pointer(rowIds));
    }
  }
}
