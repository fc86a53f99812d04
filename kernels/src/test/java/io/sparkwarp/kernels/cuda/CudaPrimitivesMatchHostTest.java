package io.sparkwarp.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import java.util.Random;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every batch primitive's CUDA kernel against its host reference, on fresh random input of the sizes around warp,
 * word and block boundaries: the same input bytes in, the same output bytes out (destinations start random, so
 * bits outside the written range must survive).
 */
@Tag("gpu")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CudaPrimitivesMatchHostTest {
  static final int[] SIZES = {0, 1, 31, 32, 33, 255, 256, 257, 1000, 100_003, 3_000_017};

  private final Random rnd = new Random();
  private Backend cuda;
  private Backend host;

  @BeforeAll
  void open() {
    cuda = Backends.open(BackendKind.CUDA, BackendOptions.defaults());
    host = Backends.open(BackendKind.HOST, BackendOptions.defaults());
  }

  @AfterAll
  void close() {
    cuda.close();
    host.close();
  }

  /** The same random bytes on both backends. */
  private final class Pair implements AutoCloseable {
    final DeviceBuffer onCuda;
    final DeviceBuffer onHost;
    final long bytes;

    Pair(long bytes, DeviceStream cs, DeviceStream hs) {
      this.bytes = bytes;
      byte[] data = new byte[(int) bytes];
      rnd.nextBytes(data);
      onCuda = cuda.allocate(bytes, cs);
      onHost = host.allocate(bytes, hs);
      try (HostBlock staging = cuda.transferMemory().pool().allocate(bytes)) {
        MemoryUtil.copyToMemory(data, 0, staging.address(), bytes);
        cuda.copyHostToDevice(staging.address(), onCuda, 0, bytes, cs);
        host.copyHostToDevice(staging.address(), onHost, 0, bytes, hs);
        cs.synchronize();
      }
    }

    void assertSame(DeviceStream cs, String what) {
      byte[] fromCuda = new byte[(int) bytes];
      byte[] fromHost = new byte[(int) bytes];
      try (HostBlock staging = cuda.transferMemory().pool().allocate(bytes)) {
        cuda.copyDeviceToHost(onCuda, 0, staging.address(), bytes, cs);
        cs.synchronize();
        MemoryUtil.copyFromMemory(staging.address(), fromCuda, 0, bytes);
      }
      MemoryUtil.copyFromMemory(onHost.address(), fromHost, 0, bytes);
      assertArrayEquals(fromHost, fromCuda, what);
    }

    @Override
    public void close() {
      onCuda.close();
      onHost.close();
    }
  }

  private void forEachSize(BiConsumer<Integer, DeviceStream[]> body) {
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
      for (int n : SIZES) body.accept(n, new DeviceStream[] {cs, hs});
    }
  }

  @Test
  void copyBitsMatchesAtEveryAlignment() {
    forEachSize((n, s) -> {
      for (int trial = 0; trial < 4; trial++) {
        long srcBit = rnd.nextInt(100);
        long dstBit = rnd.nextInt(100);
        try (Pair src = new Pair((srcBit + n + 7) / 8 + 1, s[0], s[1]);
            Pair dst = new Pair((dstBit + n + 7) / 8 + 1, s[0], s[1])) {
          cuda.batchPrimitives().copyBits(src.onCuda, srcBit, dst.onCuda, dstBit, n, s[0]);
          host.batchPrimitives().copyBits(src.onHost, srcBit, dst.onHost, dstBit, n, s[1]);
          dst.assertSame(s[0], "copyBits " + n + " bits from " + srcBit + " to " + dstBit);
        }
      }
    });
  }

  @Test
  void fillBitsMatches() {
    forEachSize((n, s) -> {
      long dstBit = rnd.nextInt(70);
      boolean value = rnd.nextBoolean();
      try (Pair dst = new Pair((dstBit + n + 7) / 8 + 1, s[0], s[1])) {
        cuda.batchPrimitives().fillBits(dst.onCuda, dstBit, n, value, s[0]);
        host.batchPrimitives().fillBits(dst.onHost, dstBit, n, value, s[1]);
        dst.assertSame(s[0], "fillBits " + n + " bits at " + dstBit + " = " + value);
      }
    });
  }

  @Test
  void rebaseOffsetsMatches() {
    forEachSize((n, s) -> {
      long srcIndex = rnd.nextInt(5);
      long dstIndex = rnd.nextInt(5);
      int add = rnd.nextInt(1 << 20);
      try (Pair src = new Pair(4 * (srcIndex + n), s[0], s[1]); Pair dst = new Pair(4 * (dstIndex + n), s[0], s[1])) {
        cuda.batchPrimitives().rebaseOffsets(src.onCuda, srcIndex, n, dst.onCuda, dstIndex, add, s[0]);
        host.batchPrimitives().rebaseOffsets(src.onHost, srcIndex, n, dst.onHost, dstIndex, add, s[1]);
        dst.assertSame(s[0], "rebaseOffsets of " + n);
      }
    });
  }

  @Test
  void decimalWidthChangesMatch() {
    forEachSize((n, s) -> {
      try (Pair wide = new Pair(16L * n, s[0], s[1]); Pair narrow = new Pair(8L * n, s[0], s[1])) {
        cuda.batchPrimitives().decimal128To64(wide.onCuda, narrow.onCuda, n, s[0]);
        host.batchPrimitives().decimal128To64(wide.onHost, narrow.onHost, n, s[1]);
        narrow.assertSame(s[0], "decimal128To64 of " + n);
        cuda.batchPrimitives().decimal64To128(narrow.onCuda, wide.onCuda, n, s[0]);
        host.batchPrimitives().decimal64To128(narrow.onHost, wide.onHost, n, s[1]);
        wide.assertSame(s[0], "decimal64To128 of " + n);
      }
    });
  }
}
