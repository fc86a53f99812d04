package io.sparkwarp.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aggregation kernels' own code on the CPU, so CI checks it without a GPU: {@code int192_on_cpu.cpp} runs the
 * exact-sum arithmetic of {@code int192.cuh} (products of two and three int64 against __int128 and a schoolbook
 * reference, quotients rounded half up, bounds, warp and atomic sums); {@code aggregate_on_cpu.cpp} runs {@code
 * aggregate.cu}'s group table, all three accumulation modes, finalisation (sums, sums of products, extremes,
 * counts, a null key group) and the mean kernel against a reference over __int128. Not speed, nor the GPU's memory
 * model.
 */
class AggregateKernelsOnCpuTest {
  private static final long TIMEOUT_SECONDS = 300;

  @TempDir
  Path work;

  @Test
  void exactArithmeticAgreesWithReferences() throws Exception {
    run("int192_on_cpu");
  }

  @Test
  void kernelsAgreeWithAReference() throws Exception {
    run("aggregate_on_cpu");
  }

  private void run(String program) throws Exception {
    Path binary = CpuEmulation.compile(work, program);
    ProcessBuilder pb = new ProcessBuilder(binary.toString()).redirectErrorStream(true);
    pb.environment().put("ASAN_OPTIONS", "detect_leaks=0");
    Process p = pb.start();
    boolean finished = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!finished) p.destroyForcibly().waitFor();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(finished, program + " hung (a lane that skips a warp collective?):\n" + output);
    assertEquals(0, p.exitValue(), output);
    assertEquals("ok", output.strip());
  }
}
