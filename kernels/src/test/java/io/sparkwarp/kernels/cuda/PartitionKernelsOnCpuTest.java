package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.testing.CpuKernelHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shuffle's partition kernels' own code on the CPU, so CI checks it without a GPU: {@code partition_on_cpu.cpp}
 * runs {@code partition.cu}'s Spark Murmur3 against Spark's known answers for every key kind, the folding of several
 * keys and nulls, pmod, round-robin ids, and {@code grouping.cu}'s grouping by both its paths, a block or a warp per
 * tile (of row indices and of carried values), against a stable counting sort. Not speed, nor the GPU's memory model.
 */
class PartitionKernelsOnCpuTest {
  @TempDir
  Path work;

  @Test
  void kernelsAgreeWithSparkAndAReference() throws Exception {
    CpuKernelHarness.compile("partition_on_cpu", work).runSelfChecking();
  }
}
