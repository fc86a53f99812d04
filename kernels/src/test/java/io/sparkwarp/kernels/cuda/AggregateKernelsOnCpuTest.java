package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.testing.CpuKernelHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aggregation kernels' own code on the CPU, so CI checks it without a GPU: {@code int192_on_cpu.cpp} runs the
 * exact-sum arithmetic of {@code int192.cuh} (products of two and three int64 against __int128 and a schoolbook
 * reference, quotients rounded half up, bounds, atomic sums); {@code aggregate_on_cpu.cpp} runs {@code
 * aggregate.cu}'s group table, both accumulation kernels (global atomics, and shared memory with 1 to 32 copies of
 * the accumulators over several blocks), finalisation (sums, sums of products, extremes, counts, 5 and 32 groups
 * with a null key group) and the mean kernel against a reference over __int128. Not speed, nor the GPU's memory
 * model.
 */
class AggregateKernelsOnCpuTest {
  @TempDir
  Path work;

  @Test
  void exactArithmeticAgreesWithReferences() throws Exception {
    CpuKernelHarness.compile("int192_on_cpu", work).runSelfChecking();
  }

  @Test
  void kernelsAgreeWithAReference() throws Exception {
    CpuKernelHarness.compile("aggregate_on_cpu", work).runSelfChecking();
  }
}
