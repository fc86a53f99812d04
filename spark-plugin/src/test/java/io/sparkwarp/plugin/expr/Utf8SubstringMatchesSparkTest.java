package io.sparkwarp.plugin.expr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.sparkwarp.kernels.strings.SubstringTesting;
import io.sparkwarp.kernels.strings.Utf8Substring;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The device's definition of substring ({@link Utf8Substring}, which the host backend runs and the kernels are
 * compared with) against Spark's own {@code UTF8String.substringSQL} on fresh random strings: UTF-8 of 1 to 4-byte
 * characters and bytes that are not UTF-8, for the test arguments and random ones. Where the last character claims
 * bytes past the string's end, Spark copies what follows the string in memory: here 4 zero bytes, which the strings
 * never hold, so Spark's answer less its zero bytes is the answer that stops at the string's end.
 */
class Utf8SubstringMatchesSparkTest {
  private final long seed = new Random().nextLong();
  private final Random rnd = new Random(seed);

  @Test
  void rangesEqualSparksSubstrings() {
    for (int i = 0; i < 20_000; i++) {
      byte[] s = rnd.nextInt(3) == 0 ? SubstringTesting.notUtf8(rnd, 12)
          : RandomVectors.randomString(rnd, 12, false);
      int[] args = rnd.nextBoolean() ? SubstringTesting.ARGUMENTS[rnd.nextInt(SubstringTesting.ARGUMENTS.length)]
          : new int[] {rnd.nextInt(21) - 10, rnd.nextInt(14) - 2};
      byte[] padded = Arrays.copyOf(s, s.length + 4);
      byte[] spark = UTF8String.fromBytes(padded, 0, s.length).substringSQL(args[0], args[1]).getBytes();
      long range = Utf8Substring.range(s, 0, s.length, args[0], args[1]);
      byte[] ours = Arrays.copyOfRange(s, (int) (range >>> 32), (int) range);
      assertArrayEquals(withoutZeros(spark), ours, "substring(" + HexFormat.of().formatHex(s) + ", " + args[0] + ", "
          + args[1] + "), seed " + seed);
    }
  }

  private static byte[] withoutZeros(byte[] b) {
    int n = b.length;
    while (n > 0 && b[n - 1] == 0) n--;
    return Arrays.copyOf(b, n);
  }
}
