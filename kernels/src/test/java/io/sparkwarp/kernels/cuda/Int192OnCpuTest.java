package io.sparkwarp.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exact-sum arithmetic of {@code int192.cuh} (what aggregation's sums, sums of products and averages rest on),
 * run on the CPU by {@code int192_on_cpu.cpp}: products of two and three int64 against __int128 and a schoolbook
 * reference, scaled quotients rounded half up, bounds, and the warp and atomic sums through the warp emulation.
 */
class Int192OnCpuTest {
  @TempDir
  Path work;

  @Test
  void arithmeticAgreesWithReferences() throws Exception {
    Path binary = CpuEmulation.compile(work, "int192_on_cpu");
    ProcessBuilder pb = new ProcessBuilder(binary.toString()).redirectErrorStream(true);
    pb.environment().put("ASAN_OPTIONS", "detect_leaks=0");
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(300, TimeUnit.SECONDS);
    assertEquals(0, p.exitValue(), output);
    assertEquals("ok", output.strip());
  }
}
