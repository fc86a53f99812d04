package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.testing.CpuKernelHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device sort's kernels' own code on the CPU, so CI checks it without a GPU: {@code sort_on_cpu.cpp} runs
 * {@code sort.cu}'s key statistics and digit kernels, composed pass by pass with {@code grouping.cu} as DeviceSort
 * plans them, against std::stable_sort with Spark's ordering (ints, doubles with NaN and -0.0, strings, 128-bit
 * decimals, booleans; both directions and null placements; several keys). Not speed, nor the GPU's memory model.
 */
class SortKernelsOnCpuTest {
  @TempDir
  Path work;

  @Test
  void passesSortLikeSpark() throws Exception {
    CpuKernelHarness.compile("sort_on_cpu", work).runSelfChecking();
  }
}
