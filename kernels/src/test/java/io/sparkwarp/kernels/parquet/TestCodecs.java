package io.sparkwarp.kernels.parquet;

import com.github.luben.zstd.ZstdCompressCtx;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Random;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import org.xerial.snappy.Snappy;

/**
 * A block's stored bytes as Parquet's writers make them: snappy-java for SNAPPY, lz4-java's fast or high compressor
 * (at random: short and long matches) for LZ4_RAW, and for LZ4 those blocks in Hadoop's framing as parquet-mr's
 * BlockCompressorStream writes it, in random shapes: several framed blocks, a block split into several LZ4 blocks
 * (a write past Hadoop's buffer) followed by an empty one; for ZSTD zstd-jni's frames at levels 1, 3 or 19 (raw, RLE
 * and compressed blocks, Huffman and FSE modes, repeat offsets), with or without their content size, sometimes two
 * frames for one page.
 */
final class TestCodecs {
  private static final LZ4Factory LZ4 = LZ4Factory.fastestJavaInstance();

  private TestCodecs() {}

  static byte[] compress(CompressedBlocks.Codec codec, byte[] bytes, Random rnd) {
    return switch (codec) {
      case UNCOMPRESSED -> bytes;
      case SNAPPY -> snappy(bytes);
      case LZ4_RAW -> lz4(bytes, rnd);
      case LZ4 -> hadoopLz4(bytes, rnd);
      case ZSTD -> zstd(bytes, rnd);
    };
  }

  /** Levels of {@link #zstd}: the fastest, zstd-jni's default, and the strongest parquet-mr's users pick. */
  static final int[] ZSTD_LEVELS = {1, 3, 19};

  static byte[] zstd(byte[] bytes, Random rnd) {
    int level = ZSTD_LEVELS[rnd.nextInt(ZSTD_LEVELS.length)];
    boolean contentSize = rnd.nextBoolean();
    if (bytes.length < 2 || rnd.nextInt(4) != 0) return zstd(bytes, level, contentSize, false);
    int split = 1 + rnd.nextInt(bytes.length - 1);  // two frames
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(zstd(Arrays.copyOfRange(bytes, 0, split), level, contentSize, false));
    out.writeBytes(zstd(Arrays.copyOfRange(bytes, split, bytes.length), level, contentSize, false));
    return out.toByteArray();
  }

  /** One ZSTD frame of {@code bytes}. */
  static byte[] zstd(byte[] bytes, int level, boolean contentSize, boolean checksum) {
    try (ZstdCompressCtx ctx = new ZstdCompressCtx()) {
      return ctx.setLevel(level).setContentSize(contentSize).setChecksum(checksum).compress(bytes);
    }
  }

  private static byte[] snappy(byte[] bytes) {
    try {
      return Snappy.compress(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] lz4(byte[] bytes, Random rnd) {
    LZ4Compressor compressor = rnd.nextBoolean() ? LZ4.fastCompressor() : LZ4.highCompressor();
    return compressor.compress(bytes);
  }

  /** Hadoop's framing: blocks of a 4-byte big-endian output length, then LZ4 blocks of a stored length each. */
  static byte[] hadoopLz4(byte[] bytes, Random rnd) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (bytes.length == 0) writeInt(out, 0);  // an empty page: one empty block
    for (int pos = 0; pos < bytes.length; ) {
      int left = bytes.length - pos;
      int block = rnd.nextBoolean() ? left : 1 + rnd.nextInt(left);
      int chunk = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(block) : block;
      writeInt(out, block);
      for (int at = pos; at < pos + block; at += chunk) {
        byte[] packed = lz4(Arrays.copyOfRange(bytes, at, Math.min(pos + block, at + chunk)), rnd);
        writeInt(out, packed.length);
        out.writeBytes(packed);
      }
      if (chunk < block) writeInt(out, 0);  // what Hadoop writes after a block it split
      pos += block;
    }
    return out.toByteArray();
  }

  private static void writeInt(ByteArrayOutputStream out, int v) {
    out.write(v >>> 24);
    out.write(v >>> 16);
    out.write(v >>> 8);
    out.write(v);
  }
}
