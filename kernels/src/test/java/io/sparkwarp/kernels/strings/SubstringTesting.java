package io.sparkwarp.kernels.strings;

import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;

/**
 * Substring test material: columns of awkward strings and the (pos, len) arguments that reach every rule of
 * {@link Utf8Substring}.
 */
public final class SubstringTesting {
  /**
   * pos and len pairs: TPC-H Q22's (1, 2), pos 0, empty and negative lengths, positions from the end and past the
   * start, positions past the end, and the extremes where pos + len saturates.
   */
  public static final int[][] ARGUMENTS = {{1, 2}, {0, 3}, {1, 0}, {1, -1}, {2, 1}, {3, Integer.MAX_VALUE},
      {-1, 1}, {-3, 2}, {-4, Integer.MAX_VALUE}, {-100, 102}, {-100, 3}, {40, 5}, {700, 3},
      {Integer.MIN_VALUE, Integer.MAX_VALUE}, {Integer.MAX_VALUE, Integer.MAX_VALUE},
      {Integer.MIN_VALUE, Integer.MIN_VALUE}, {7, Integer.MIN_VALUE}};

  private SubstringTesting() {}

  /**
   * A string column of {@code rows} rows: 5% null, 5% empty, 10% bytes that are not UTF-8, the rest UTF-8 of 1 to
   * 4-byte code points, mostly up to 40 bytes (a lane's walk), 1 in 10 up to {@code longest} (a warp's).
   */
  public static VarCharVector column(int rows, int longest, Random rnd, BufferAllocator allocator) {
    VarCharVector v = new VarCharVector("s", allocator);
    v.allocateNew();
    for (int i = 0; i < rows; i++) {
      double u = rnd.nextDouble();
      int max = rnd.nextInt(10) == 0 ? longest : 40;
      if (u < 0.05) v.setNull(i);
      else if (u < 0.1) v.setSafe(i, new byte[0]);
      else if (u < 0.2) v.setSafe(i, notUtf8(rnd, max));
      else v.setSafe(i, RandomVectors.randomString(rnd, max, rnd.nextInt(10) == 0));
    }
    v.setValueCount(rows);
    return v;
  }

  /**
   * Up to {@code maxBytes} bytes, a third of them the ones Spark reads as 1-byte characters although they start no
   * UTF-8 character (continuations, C0, C1, F5..FF), a third leading bytes of 2 to 4-byte characters, so that
   * characters swallow the bytes after them and the last one often claims more bytes than are left.
   */
  public static byte[] notUtf8(Random rnd, int maxBytes) {
    byte[] b = new byte[rnd.nextInt(maxBytes + 1)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) switch (rnd.nextInt(6)) {
        case 0 -> 0x80 + rnd.nextInt(0x40);
        case 1 -> new int[] {0xc0, 0xc1, 0xf5, 0xff}[rnd.nextInt(4)];
        case 2, 3 -> 0xc2 + rnd.nextInt(0xf5 - 0xc2);
        default -> 'a' + rnd.nextInt(26);
      };
    }
    return b;
  }
}
