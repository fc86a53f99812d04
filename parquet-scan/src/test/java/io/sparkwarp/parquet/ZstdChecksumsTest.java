package io.sparkwarp.parquet;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Frames as zstd-jni writes them: with and without checksums, several blocks, several frames, skippable frames. */
class ZstdChecksumsTest {
  private final Random rnd = new Random(42);

  @Test
  void framesWithoutChecksumsStayOnTheDevice() {
    for (int size : new int[] {0, 1, 1000, 300_000}) {
      for (int level : new int[] {1, 19}) {
        byte[] frame = Zstd.compress(data(size), level);
        assertFalse(present(frame), size + " bytes at level " + level);
        assertFalse(present(concat(frame, skippable(7), frame)), "two frames and a skippable one");
      }
    }
  }

  @Test
  void aChecksumInAnyFrameIsFound() {
    byte[] plain = Zstd.compress(data(5000), 3);
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      ctx.setChecksum(true);
      byte[] checked = ctx.compress(data(300_000));
      assertTrue(present(checked));
      assertTrue(present(concat(plain, checked)), "the second frame's");
    }
  }

  @Test
  void headersThatCannotBeWalkedAreSentToTheReaderThreads() {
    byte[] frame = Zstd.compress(data(5000), 3);
    assertTrue(present(java.util.Arrays.copyOf(frame, frame.length - 1)), "truncated");
    byte[] bad = frame.clone();
    bad[0] ^= 1;
    assertTrue(present(bad), "a damaged magic");
  }

  private byte[] data(int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) b[i] = (byte) (rnd.nextInt(4) == 0 ? rnd.nextInt(256) : 'a' + i % 7);
    return b;
  }

  private static byte[] skippable(int size) {
    ByteBuffer b = ByteBuffer.allocate(8 + size).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    return b.putInt(0x184D2A53).putInt(size).array();
  }

  private static byte[] concat(byte[]... parts) {
    ByteBuffer b = ByteBuffer.allocate(java.util.Arrays.stream(parts).mapToInt(p -> p.length).sum());
    for (byte[] p : parts) b.put(p);
    return b.array();
  }

  private static boolean present(byte[] bytes) {
    ByteBuffer direct = ByteBuffer.allocateDirect(Math.max(1, bytes.length));
    direct.put(bytes);
    return ZstdChecksums.present(org.apache.arrow.memory.util.MemoryUtil.getByteBufferAddress(direct), bytes.length);
  }
}
