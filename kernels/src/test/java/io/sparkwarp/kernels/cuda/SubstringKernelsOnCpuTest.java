package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.host.HostBackend;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.strings.SubstringTesting;
import io.sparkwarp.kernels.testing.CpuKernelHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The substring kernels' own code, run on the CPU so that CI (which has no GPU) checks it: {@code
 * substring_on_cpu.cpp} compiles {@code substring.cu} against the warp emulation, with AddressSanitizer and UBSan
 * where the compiler has them, and compares its offsets and bytes with the host backend's for every argument pair
 * of {@link SubstringTesting#ARGUMENTS}, over random columns (multi-byte UTF-8, bytes that are not UTF-8, nulls,
 * empty strings, a few long strings), an empty column and 33 rows. Not speed, nor the GPU's memory model.
 */
class SubstringKernelsOnCpuTest {
  @TempDir
  Path work;

  private final long seed = new Random().nextLong();
  private final Random rnd = new Random(seed);

  @Test
  void kernelsAgreeWithTheHostOnTheCpu() throws Exception {
    CpuKernelHarness harness = CpuKernelHarness.compile("substring_on_cpu", work);
    try (HostBackend host = new HostBackend(BackendOptions.defaults()); DeviceStream stream = host.newStream();
        RootAllocator allocator = new RootAllocator()) {
      List<VarCharVector> cases = List.of(SubstringTesting.column(120, 600, rnd, allocator),
          SubstringTesting.column(0, 10, rnd, allocator), SubstringTesting.column(33, 100, rnd, allocator));
      harness.runCases(cases, (c, dir) -> write(host, stream, c, dir), work, seed);
    }
  }

  /** The case files substring_on_cpu.cpp reads: the column, and the host's offsets and bytes for each pair. */
  private static void write(HostBackend host, DeviceStream stream, VarCharVector v, Path dir) throws IOException {
    Files.createDirectories(dir);
    StringBuilder manifest = new StringBuilder();
    try (DeviceColumn c = ArrowUpload.upload(host, v, stream)) {
      int rows = c.rowCount();
      Files.write(dir.resolve("validity.bin"), hostBytes(c.validity(), (rows + 7) / 8));
      Files.write(dir.resolve("offsets.bin"), hostBytes(c.offsets(), 4L * (rows + 1)));
      Files.write(dir.resolve("data.bin"), hostBytes(c.data(), c.dataBytes()));
      for (int i = 0; i < SubstringTesting.ARGUMENTS.length; i++) {
        int[] args = SubstringTesting.ARGUMENTS[i];
        try (DeviceColumn out = host.strings().substring(c, args[0], args[1], stream)) {
          Files.write(dir.resolve("offsets_" + i + ".bin"), hostBytes(out.offsets(), 4L * (rows + 1)));
          Files.write(dir.resolve("data_" + i + ".bin"), hostBytes(out.data(), out.dataBytes()));
        }
        manifest.append(i).append(' ').append(args[0]).append(' ').append(args[1]).append('\n');
      }
    }
    Files.writeString(dir.resolve("manifest.txt"), manifest.toString());
  }

  /** The host backend's "device" memory is host memory. */
  private static byte[] hostBytes(DeviceBuffer buffer, long n) {
    byte[] out = new byte[Math.toIntExact(n)];
    MemoryUtil.copyFromMemory(buffer.address(), out, 0, n);
    return out;
  }
}
