package io.sparkwarp.kernels.parquet;

import java.io.ByteArrayOutputStream;
import java.util.Random;

/**
 * Valid Snappy streams that Google's compressor never writes, for the device's fragment split
 * ({@link SnappyFragments}): copies that read across a 64 KiB fragment boundary (as another compressor may write),
 * and literals or copies that run across one. Every one must decode as snappy-java decodes it.
 */
final class SnappyStreams {
  private SnappyStreams() {}

  /**
   * About {@code fragments} x 64 KiB of output: random literals and copies up to 200 KiB back (so across fragments),
   * some elements ending exactly on a fragment boundary and some running across one. Returns {output, stream}.
   */
  static byte[][] acrossFragments(int fragments, Random rnd) {
    int target = Math.toIntExact(fragments * SnappyFragments.FRAGMENT_BYTES);
    byte[] out = new byte[target + 128];
    int size = 0;
    ByteArrayOutputStream elements = new ByteArrayOutputStream();
    while (size < target) {
      int toBoundary = (int) (SnappyFragments.FRAGMENT_BYTES - size % SnappyFragments.FRAGMENT_BYTES);
      if (size > 0 && rnd.nextInt(3) > 0) {
        int length = rnd.nextInt(4) == 0 && toBoundary <= 64 ? toBoundary : 1 + rnd.nextInt(64);  // some end on it
        int offset = 1 + rnd.nextInt(Math.min(size, 200_000));
        elements.write(((length - 1) << 2) | 3);  // a copy with a 4-byte offset
        for (int k = 0; k < 4; k++) elements.write(offset >>> (8 * k));
        for (int i = 0; i < length; i++, size++) out[size] = out[size - offset];  // overlapping copies repeat
      } else {
        // long literals run across boundaries; none runs far past the last one
        int length = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(Math.min(70_000, target - size + 64)) : 1 + rnd.nextInt(60);
        literal(elements, length);
        for (int i = 0; i < length; i++, size++) {
          out[size] = (byte) rnd.nextInt(256);
          elements.write(out[size]);
        }
      }
    }
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    for (long n = size; ; n >>>= 7) {  // the preamble: the output size as a varint
      if (n < 0x80) {
        stream.write((int) n);
        break;
      }
      stream.write((int) (n & 0x7f) | 0x80);
    }
    stream.writeBytes(elements.toByteArray());
    return new byte[][] {java.util.Arrays.copyOf(out, size), stream.toByteArray()};
  }

  /** A literal's tag and length bytes. */
  private static void literal(ByteArrayOutputStream elements, int length) {
    int n = length - 1;
    if (n < 60) {
      elements.write(n << 2);
    } else {
      int bytes = n < 1 << 8 ? 1 : n < 1 << 16 ? 2 : n < 1 << 24 ? 3 : 4;
      elements.write((59 + bytes) << 2);
      for (int k = 0; k < bytes; k++) elements.write(n >>> (8 * k));
    }
  }
}
