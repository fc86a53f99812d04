package io.sparkwarp.kernels.parquet;

import java.util.Random;

/**
 * Bytes that exercise every element of the LZ77 codecs (Snappy, LZ4): incompressible noise (long literals), runs of
 * one byte (copies that overlap their source), text-like repeats from a few words (short copies, chains of nested
 * back-references), sorted keys (chains of copies each reading the one before), and the empty block.
 */
final class LzInputs {
  /** Kinds of {@link #of}. */
  static final int KINDS = 6;
  private static final String[] WORDS = {"parquet ", "gompresso ", "warp ", "the ", "a", "lineitem|", "42|", "\n"};

  private LzInputs() {}

  static byte[] random(Random rnd) {
    int n = switch (rnd.nextInt(6)) {
      case 0 -> 0;
      case 1 -> rnd.nextInt(64);
      case 2 -> rnd.nextInt(5000);
      default -> rnd.nextInt(200_000);
    };
    return of(rnd.nextInt(KINDS), n, rnd);
  }

  /**
   * {@code n} bytes of kind 0 (noise), 1 (runs), 2 (words), 3 (a mix of those), 4 (sorted keys: the PLAIN page of
   * an ordered int64 column such as l_orderkey, whose copies each read the one before, 8 bytes back) or 5 (the mix
   * with noise of up to 9000 bytes: literals longer than the decompressor's ring of recent output, then copies).
   */
  static byte[] of(int kind, int n, Random rnd) {
    if (kind == 4) return sortedKeys(n, rnd);
    byte[] b = new byte[n];
    int i = 0;
    while (i < n) {
      int k = kind >= 3 ? rnd.nextInt(3) : kind;
      if (k == 0) {
        int len = Math.min(n - i, 1 + rnd.nextInt(kind == 5 ? 9000 : 300));
        for (int j = 0; j < len; j++) b[i++] = (byte) rnd.nextInt(256);
      } else if (k == 1) {
        int len = Math.min(n - i, 1 + rnd.nextInt(500));
        byte v = (byte) rnd.nextInt(4);
        for (int j = 0; j < len; j++) b[i++] = v;
      } else {
        byte[] w = WORDS[rnd.nextInt(WORDS.length)].getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int j = 0; j < w.length && i < n; j++) b[i++] = w[j];
      }
    }
    return b;
  }

  private static byte[] sortedKeys(int n, Random rnd) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(n).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    long key = rnd.nextInt(1 << 20);
    while (b.remaining() >= 8) {
      key += 1 + (rnd.nextInt(8) == 0 ? rnd.nextInt(32) : 0);
      for (int repeats = 1 + rnd.nextInt(7); repeats > 0 && b.remaining() >= 8; repeats--) b.putLong(key);
    }
    while (b.hasRemaining()) b.put((byte) key);
    return b.array();
  }
}
