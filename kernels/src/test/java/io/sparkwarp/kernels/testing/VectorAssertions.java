package io.sparkwarp.kernels.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;

/** Value-by-value comparison of Arrow vectors: floats by their bits (NaN payloads, -0.0), bytes by content. */
public final class VectorAssertions {
  private VectorAssertions() {}

  /** {@code actual} equals rows [start, start + actual's length) of {@code expected}, type included. */
  public static void assertRowsEqual(FieldVector expected, int start, FieldVector actual, String what) {
    assertEquals(expected.getField().getType(), actual.getField().getType(), what + ": type");
    for (int i = 0; i < actual.getValueCount(); i++) {
      int e = start + i;
      if (expected.isNull(e) != actual.isNull(i)) {
        fail(what + ": row " + i + " is " + (actual.isNull(i) ? "null" : "not null") + ", expected the opposite");
      }
      if (expected.isNull(e)) continue;
      if (expected instanceof Float4Vector f) {
        assertEquals(Float.floatToRawIntBits(f.get(e)), Float.floatToRawIntBits(((Float4Vector) actual).get(i)),
            what + ": row " + i);
      } else if (expected instanceof Float8Vector d) {
        assertEquals(Double.doubleToRawLongBits(d.get(e)), Double.doubleToRawLongBits(((Float8Vector) actual).get(i)),
            what + ": row " + i);
      } else {
        Object x = expected.getObject(e);
        Object y = actual.getObject(i);
        if (x instanceof byte[] xb) {
          assertArrayEquals(xb, (byte[]) y, what + ": row " + i);
        } else if (!Objects.equals(x, y)) {
          fail(what + ": row " + i + " is " + describe(y) + ", expected " + describe(x));
        }
      }
    }
  }

  /** The whole of {@code actual} equals the whole of {@code expected}. */
  public static void assertVectorEquals(FieldVector expected, FieldVector actual, String what) {
    assertEquals(expected.getValueCount(), actual.getValueCount(), what + ": rows");
    assertEquals(expected.getNullCount(), actual.getNullCount(), what + ": nulls");
    assertRowsEqual(expected, 0, actual, what);
  }

  private static String describe(Object o) {
    return o instanceof byte[] b ? Arrays.toString(b) : String.valueOf(o);
  }
}
