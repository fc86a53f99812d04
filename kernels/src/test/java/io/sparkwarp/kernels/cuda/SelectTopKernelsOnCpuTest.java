package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.testing.CpuKernelHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The top-N selection's kernels' own code on the CPU, so CI checks it without a GPU: {@code select_top_on_cpu.cpp}
 * runs {@code select_top.cu}'s prefixes of every kind against values in Spark's order (both directions, both null
 * placements), its byte histograms over several blocks, and its candidates' mask compacted by {@code select.cu}'s
 * kernels, against plain counts and filters. Not speed, nor the GPU's memory model.
 */
class SelectTopKernelsOnCpuTest {
  @TempDir
  Path work;

  @Test
  void kernelsFollowSparksOrderAndAReference() throws Exception {
    CpuKernelHarness.compile("select_top_on_cpu", work).runSelfChecking();
  }
}
