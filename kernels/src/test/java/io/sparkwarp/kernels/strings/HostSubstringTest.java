package io.sparkwarp.kernels.strings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/**
 * The host backend's substring against answers worked out by hand from Spark 4.1's {@code UTF8String.substringSQL}
 * (spark-plugin's Utf8SubstringMatchesSparkTest compares with Spark itself on random bytes): characters of 1 to 4
 * bytes, pos 0, negative positions, empty and negative lengths, saturating pos + len, bytes that are not UTF-8, nulls
 * and empty strings.
 */
class HostSubstringTest extends BackendTestBase {
  /** 4 characters, 8 bytes: 1, 4, 1 and 2 bytes long. */
  private static final byte[] MIXED = "a😀bé".getBytes(StandardCharsets.UTF_8);

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void charactersNotBytes() {
    assertSubstrings(MIXED, new Object[][] {
        {1, 2, "a😀"}, {0, 2, "a😀"}, {2, 1, "😀"}, {3, 10, "bé"}, {-2, 2, "bé"}, {-1, Integer.MAX_VALUE, "é"},
        // from 6 before the start to 2: the characters before position 2
        {-10, 8, "a😀"}, {-10, 5, ""}, {5, 1, ""}, {2, 0, ""}, {2, -1, ""},
        // pos + len saturates to Integer.MAX_VALUE or MIN_VALUE instead of wrapping
        {Integer.MIN_VALUE, Integer.MAX_VALUE, "a😀b"}, {Integer.MAX_VALUE, Integer.MAX_VALUE, ""},
        {1, Integer.MIN_VALUE, ""}});
  }

  @Test
  void bytesThatAreNotUtf8CountAsSparkCountsThem() {
    byte[] swallowing = {(byte) 0xe0, 'A', 'B', 'C'};  // E0 starts a 3-byte character whatever follows
    assertSubstrings(swallowing, new Object[][] {{1, 1, bytes(0xe0, 'A', 'B')}, {2, 1, "C"}, {-1, 1, "C"}});
    byte[] loose = {(byte) 0x80, (byte) 0xc0, (byte) 0xff, 'A'};  // each a character of 1 byte
    assertSubstrings(loose, new Object[][] {{2, 2, bytes(0xc0, 0xff)}, {-1, 1, "A"}});
    byte[] truncated = {'A', (byte) 0xf0, 'B'};  // F0 claims 4 bytes, 2 are left: it ends at the string's end
    assertSubstrings(truncated, new Object[][] {{2, 1, bytes(0xf0, 'B')}, {-1, 1, bytes(0xf0, 'B')},
        {1, 1, "A"}, {3, 1, ""}});
  }

  @Test
  void nullsStayNullAndEmptyStaysEmpty() {
    try (VarCharVector v = new VarCharVector("s", pageable)) {
      v.allocateNew();
      v.setNull(0);
      v.setSafe(1, new byte[0]);
      v.setSafe(2, MIXED);
      v.setValueCount(3);
      VarCharVector out = substring(v, 2, 2);
      try (out) {
        assertEquals(true, out.isNull(0));
        assertArrayEquals(new byte[0], out.get(1));
        assertArrayEquals("😀b".getBytes(StandardCharsets.UTF_8), out.get(2));
      }
    }
  }

  @Test
  void refusesAColumnThatIsNotAString() {
    try (IntVector v = new IntVector("i", pageable)) {
      v.allocateNew(1);
      v.setValueCount(1);
      try (DeviceColumn c = ArrowUpload.upload(backend, v, stream)) {
        assertThrows(IllegalArgumentException.class, () -> backend.strings().substring(c, 1, 1, stream));
      }
    }
  }

  private static byte[] bytes(int... values) {
    byte[] b = new byte[values.length];
    for (int i = 0; i < b.length; i++) b[i] = (byte) values[i];
    return b;
  }

  /** Each {pos, len, expected} over a column holding {@code s} behind an unrelated row (offsets not from 0). */
  private void assertSubstrings(byte[] s, Object[][] cases) {
    try (VarCharVector v = new VarCharVector("s", pageable)) {
      v.allocateNew();
      v.setSafe(0, "xyz".getBytes(StandardCharsets.UTF_8));
      v.setSafe(1, s);
      v.setValueCount(2);
      for (Object[] c : cases) {
        byte[] expected = c[2] instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : (byte[]) c[2];
        try (VarCharVector out = substring(v, (Integer) c[0], (Integer) c[1])) {
          assertArrayEquals(expected, out.get(1), "substring(s, " + c[0] + ", " + c[1] + ")");
        }
      }
    }
  }

  private VarCharVector substring(VarCharVector v, int pos, int len) {
    try (DeviceColumn in = ArrowUpload.upload(backend, v, stream);
        DeviceBatch out = new DeviceBatch(List.of(backend.strings().substring(in, pos, len, stream)),
            v.getValueCount())) {
      List<FieldVector> vectors = ArrowDownload.begin(backend, out, List.of("s"), pageable, stream).complete();
      return (VarCharVector) vectors.get(0);
    }
  }
}
