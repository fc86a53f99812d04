package io.sparkwarp.kernels.parquet;

import java.util.Random;

/**
 * Bytes that exercise every Snappy element: incompressible noise (long literals), runs of one byte (copies that
 * overlap their source), text-like repeats from a few words (short copies, chains of nested back-references), and
 * the empty block.
 */
final class SnappyInputs {
  private static final String[] WORDS = {"parquet ", "gompresso ", "warp ", "the ", "a", "lineitem|", "42|", "\n"};

  private SnappyInputs() {}

  static byte[] random(Random rnd) {
    int n = switch (rnd.nextInt(6)) {
      case 0 -> 0;
      case 1 -> rnd.nextInt(64);
      case 2 -> rnd.nextInt(5000);
      default -> rnd.nextInt(200_000);
    };
    return of(rnd.nextInt(4), n, rnd);
  }

  /** {@code n} bytes of kind 0 (noise), 1 (runs), 2 (words) or 3 (a mix). */
  static byte[] of(int kind, int n, Random rnd) {
    byte[] b = new byte[n];
    int i = 0;
    while (i < n) {
      int k = kind == 3 ? rnd.nextInt(3) : kind;
      if (k == 0) {
        int len = Math.min(n - i, 1 + rnd.nextInt(300));
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
}
