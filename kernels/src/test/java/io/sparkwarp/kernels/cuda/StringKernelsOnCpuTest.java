package io.sparkwarp.kernels.cuda;


import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.host.HostBackend;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.PivotedStrings;
import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.kernels.strings.StringLayout;
import io.sparkwarp.kernels.strings.StringMatcher;
import io.sparkwarp.kernels.strings.StringTesting;
import io.sparkwarp.kernels.testing.CpuKernelHarness;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
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
 * The string kernels' own code, run on the CPU so that CI (which has no GPU) checks it: {@code strings_on_cpu.cpp}
 * compiles {@code strings.cu} against an emulation of the warp features it uses ({@code src/test/cuda}), with
 * AddressSanitizer and UBSan where the compiler has them, and runs every pivot and match kernel over cases written
 * here: awkward columns (random, patterns planted across self-pivot segment boundaries, empty, 33 rows), the host
 * backend's layouts to compare with, and the matcher programs ({@link MatcherProgram}) of hand-picked, random and
 * automaton matchers with the answers {@link StringMatcher#matches} gives. This checks the kernels' logic, the
 * program ABI shared with {@link MatcherProgram} and warp-collective convergence (a lane that skips a collective
 * hangs the emulation: the timeout); not speed nor the GPU memory model. Skipped without a C++20 compiler.
 */
class StringKernelsOnCpuTest {
  @TempDir
  Path work;

  private final long seed = new Random().nextLong();
  private final Random rnd = new Random(seed);

  @Test
  void kernelsAgreeWithTheHostOnTheCpu() throws Exception {
    CpuKernelHarness harness = CpuKernelHarness.compile("strings_on_cpu", work);
    try (HostBackend host = new HostBackend(BackendOptions.defaults()); DeviceStream stream = host.newStream();
        RootAllocator allocator = new RootAllocator()) {
      List<VarCharVector> cases = List.of(StringTesting.column(150, 20, 400, rnd, allocator),
          StringTesting.boundaryColumn(new int[] {0, 1, 4, 7, 8, 9, 255, 256, 257, 513, 2048}, rnd, allocator),
          StringTesting.column(0, 10, 10, rnd, allocator), StringTesting.column(33, 30, 100, rnd, allocator));
      harness.runCases(cases, (c, dir) -> write(host, stream, c, dir), work, seed);
    }
  }

  /** Hand-picked and random segment matchers and automata, the emulation being too slow for many more. */
  private List<StringMatcher> matchers() {
    List<StringMatcher> out = StringTesting.matcherMix(rnd, 4, new int[] {1, 1}, new int[] {5, 3},
        new int[] {40, 7}, new int[] {64, 256});
    out.add(new DfaMatcher(1, 1, new byte[256], new int[] {0}, 0, new boolean[] {true}, "accepting sink"));
    return out;
  }

  /** The case files strings_on_cpu.cpp reads. */
  private void write(HostBackend host, DeviceStream stream, VarCharVector v, Path dir) throws IOException {
    Files.createDirectories(dir);
    int rows = v.getValueCount();
    byte[] validity = new byte[(rows + 7) / 8];
    ByteBuffer offsets = ByteBuffer.allocate(4 * (rows + 1)).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer data = ByteBuffer.allocate(rows == 0 ? 0 : v.getOffsetBuffer().getInt(4L * rows));
    offsets.putInt(0);
    for (int r = 0; r < rows; r++) {
      if (!v.isNull(r)) validity[r / 8] |= (byte) (1 << (r % 8));
      data.put(StringTesting.rawBytes(v, r));
      offsets.putInt(data.position());
    }
    Files.write(dir.resolve("validity.bin"), validity);
    Files.write(dir.resolve("offsets.bin"), offsets.array());
    Files.write(dir.resolve("data.bin"), data.array());
    try (DeviceColumn c = ArrowUpload.upload(host, v, stream)) {
      for (StringLayout layout : new StringLayout[] {StringLayout.PIVOTED, StringLayout.SELF_PIVOTED}) {
        try (PivotedStrings p = host.strings().pivot(c, layout, stream)) {
          String name = layout.name().toLowerCase(java.util.Locale.ROOT);
          Files.write(dir.resolve(name + "_starts.bin"), hostBytes(p.starts(), p.starts().size()));
          Files.write(dir.resolve(name + "_data.bin"), hostBytes(p.data(), p.dataBytes()));
        }
      }
    }
    StringBuilder manifest = new StringBuilder();
    List<StringMatcher> matchers = matchers();
    for (int i = 0; i < matchers.size(); i++) {
      StringMatcher m = matchers.get(i);
      Files.write(dir.resolve("program_" + i + ".bin"), MatcherProgram.encode(m));
      Files.write(dir.resolve("expected_" + i + ".bin"), packed(StringTesting.expected(v, m)));
      LiteralScan scan = LiteralScan.of(m);
      if (scan != null) {  // the contains scan's filter and literal, and the rows holding the literal
        Files.write(dir.resolve("scan_" + i + ".bin"), concat(scan.filter(), scan.literalBytes()));
        Files.write(dir.resolve("scan_expected_" + i + ".bin"),
            packed(StringTesting.expected(v, SegmentMatcher.contains(scan.literal()))));
      }
      manifest.append(i).append(m instanceof DfaMatcher ? " 1 " : " 0 ").append(scan != null ? "1 " : "0 ")
          .append(m.describe()).append('\n');
    }
    Files.writeString(dir.resolve("manifest.txt"), manifest.toString(), StandardCharsets.UTF_8);
  }

  /** Booleans as an Arrow bitmap. */
  private static byte[] packed(boolean[] values) {
    byte[] bits = new byte[(values.length + 7) / 8];
    for (int r = 0; r < values.length; r++) if (values[r]) bits[r / 8] |= (byte) (1 << (r % 8));
    return bits;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** The host backend's "device" memory is host memory. */
  private static byte[] hostBytes(DeviceBuffer buffer, long n) {
    byte[] out = new byte[Math.toIntExact(n)];
    MemoryUtil.copyFromMemory(buffer.address(), out, 0, n);
    return out;
  }
}
