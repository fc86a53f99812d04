package io.sparkwarp.kernels.parquet;

import java.util.Random;

/** Random damage to stored bytes: a few flipped bits, or a run of random bytes. */
final class Corruption {
  private Corruption() {}

  static void flip(byte[] bytes, Random rnd) {
    if (bytes.length == 0) return;
    if (rnd.nextBoolean()) {
      for (int k = 1 + rnd.nextInt(3); k > 0; k--) bytes[rnd.nextInt(bytes.length)] ^= (byte) (1 << rnd.nextInt(8));
    } else {
      int at = rnd.nextInt(bytes.length);
      for (int k = Math.min(bytes.length - at, 1 + rnd.nextInt(8)); k > 0; k--) bytes[at++] = (byte) rnd.nextInt(256);
    }
  }
}
