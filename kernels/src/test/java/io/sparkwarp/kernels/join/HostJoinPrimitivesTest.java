package io.sparkwarp.kernels.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/** The host reference join primitives against a nested-loop oracle, through the shared orchestration. */
class HostJoinPrimitivesTest extends BackendTestBase {
  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  private IntVector ints(String name, Integer... values) {
    IntVector v = new IntVector(name, pageable);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) v.setNull(i);
      else v.set(i, values[i]);
    }
    v.setValueCount(values.length);
    return v;
  }

  private BigIntVector longs(String name, Long... values) {
    BigIntVector v = new BigIntVector(name, pageable);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) v.setNull(i);
      else v.set(i, values[i]);
    }
    v.setValueCount(values.length);
    return v;
  }

  private VarCharVector strings(String name, String... values) {
    VarCharVector v = new VarCharVector(name, pageable);
    v.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) v.setNull(i);
      else v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
    }
    v.setValueCount(values.length);
    return v;
  }

  private static Integer[] boxed(int[] values) {
    return Arrays.stream(values).boxed().toArray(Integer[]::new);
  }

  /** What one join of Arrow key columns gave, checked against the oracle at every variant and capacity. */
  private record Outcome(boolean unique, long[] pairs) {}

  private Outcome join(List<FieldVector> build, List<FieldVector> probe, boolean[] nullSafe, boolean[] selected) {
    List<Boolean> flags = new ArrayList<>();
    for (boolean b : nullSafe) flags.add(b);
    long[] expected = JoinTesting.expectedPairs(build, probe, nullSafe, selected);
    try (DeviceBatch b = ArrowUpload.upload(backend, build, stream);
        DeviceBatch p = ArrowUpload.upload(backend, probe, stream);
        DeviceBuffer selection = selected == null ? null : JoinTesting.bitmap(backend, selected, stream)) {
      JoinKeys buildKeys = new JoinKeys(b.columns(), flags);
      JoinKeys probeKeys = new JoinKeys(p.columns(), flags);
      boolean unique;
      try (HashTable u = backend.joins().buildUnique(buildKeys, stream)) {
        unique = u != null;
        if (unique) {
          for (ProbeVariant v : List.of(ProbeVariant.NAIVE, ProbeVariant.REFILL)) checkProbes(u, probeKeys, selection,
              v, expected);
          assertThrows(IllegalArgumentException.class, () -> backend.joins().probe(u, new ProbeBatch(backend,
              probeKeys, null, false, stream), ProbePosition.START, 10, ProbeVariant.PUSH_DOWN, null, stream));
        }
      }
      try (HashTable m = backend.joins().buildMulti(buildKeys, stream)) {
        assertEquals(TableKind.MULTI, m.kind());
        for (ProbeVariant v : ProbeVariant.values()) checkProbes(m, probeKeys, selection, v, expected);
      }
      return new Outcome(unique, expected);
    } finally {
      Closeables.closeAll(build);
      Closeables.closeAll(probe);
    }
  }

  private void checkProbes(HashTable table, JoinKeys probeKeys, DeviceBuffer selection, ProbeVariant variant,
      long[] expected) {
    int probeRows = probeKeys.rowCount();
    for (int capacity : new int[] {1, 2, 3, 7, 1 << 20}) {
      try (DeviceBuffer buildMatches = JoinTesting.bitmap(backend, new boolean[table.rowCount()], stream);
          ProbeBatch batch = new ProbeBatch(backend, probeKeys, selection, true, stream)) {
        long[] pairs = JoinTesting.probeAll(backend, table, batch, capacity, variant, buildMatches, stream);
        String what = variant + " on " + table + " at capacity " + capacity;
        assertArrayEquals(expected, pairs, what);
        assertArrayEquals(bits(JoinTesting.matched(expected, probeRows, true)),
            JoinTesting.bytes(backend, batch.matches(), (probeRows + 7) / 8, stream), "probe matches, " + what);
        assertArrayEquals(bits(JoinTesting.matched(expected, table.rowCount(), false)),
            JoinTesting.bytes(backend, buildMatches, (table.rowCount() + 7) / 8, stream), "build matches, " + what);
      }
    }
  }

  private static byte[] bits(boolean[] set) {
    byte[] out = new byte[(set.length + 7) / 8];
    for (int i = 0; i < set.length; i++) if (set[i]) out[i / 8] |= (byte) (1 << (i % 8));
    return out;
  }

  private static boolean[] plain(int columns) {
    return new boolean[columns];
  }

  @Test
  void uniqueKeysBuildAUniqueTable() {
    Outcome o = join(List.of(ints("b", 5, 3, 9, 1, -7)), List.of(ints("p", 3, 3, 4, -7, 9, 0)), plain(1), null);
    assertTrue(o.unique());
    assertEquals(4, o.pairs().length);
  }

  @Test
  void duplicateKeysNeedAMultiMatchTable() {
    Outcome o = join(List.of(ints("b", 1, 2, 1, 3, 1)), List.of(ints("p", 1, 2, 4)), plain(1), null);
    assertFalse(o.unique());
    assertEquals(4, o.pairs().length);
  }

  @Test
  void nullKeysNeverMatch() {
    Outcome o = join(List.of(ints("b", null, 1, null)), List.of(ints("p", null, 1, null)), plain(1), null);
    assertTrue(o.unique(), "null build keys are not in the table, so they are no duplicates");
    assertEquals(1, o.pairs().length);
  }

  @Test
  void nullSafeKeysMatchNullWithNull() {
    Outcome o = join(List.of(ints("b", null, 1, 2)), List.of(ints("p", null, 1, null)), new boolean[] {true}, null);
    assertEquals(3, o.pairs().length);
    assertFalse(join(List.of(ints("b", null, null)), List.of(ints("p", 1)), new boolean[] {true}, null).unique(),
        "two null-safe nulls are equal keys");
  }

  @Test
  void emptySides() {
    assertEquals(0, join(List.of(ints("b")), List.of(ints("p", 1, 2)), plain(1), null).pairs().length);
    assertEquals(0, join(List.of(ints("b", 1, 2)), List.of(ints("p")), plain(1), null).pairs().length);
    assertEquals(0, join(List.of(ints("b")), List.of(ints("p")), plain(1), null).pairs().length);
  }

  @Test
  void allMatchAndNoMatch() {
    Integer[] sevens = new Integer[50];
    Arrays.fill(sevens, 7);
    assertEquals(50 * 40, join(List.of(ints("b", sevens)), List.of(ints("p", Arrays.copyOf(sevens, 40))), plain(1),
        null).pairs().length);
    assertEquals(0, join(List.of(ints("b", 1, 2, 3)), List.of(ints("p", 4, 5, 6)), plain(1), null).pairs().length);
  }

  @Test
  void heavySkewStreamsInChunks() {
    Random rnd = new Random(1);
    int[] build = new int[3000];
    for (int i = 0; i < build.length; i++) build[i] = i % 4 == 0 ? rnd.nextInt(500) : 42;
    int[] probe = new int[2500];
    for (int i = 0; i < probe.length; i++) probe[i] = i % 97 == 0 ? 42 : rnd.nextInt(600);
    Outcome o = join(List.of(ints("b", boxed(build))), List.of(ints("p", boxed(probe))), plain(1), null);
    assertTrue(o.pairs().length > 26 * 2000, o.pairs().length + " pairs");
  }

  @Test
  void multiColumnKeys() {
    Outcome o = join(
        List.of(ints("b1", 1, 1, 2, 2), longs("b2", 10L, 20L, 10L, null), strings("b3", "x", "x", "y", "z")),
        List.of(ints("p1", 1, 1, 2, 2), longs("p2", 10L, 20L, 10L, null), strings("p3", "x", "y", "y", "z")),
        new boolean[] {false, true, false}, null);
    assertArrayEquals(new long[] {0L, 2L << 32 | 2, 3L << 32 | 3}, o.pairs(), "row 1 differs in the string only");
  }

  @Test
  void stringKeysCompareBytes() {
    Outcome o = join(List.of(strings("b", "", "日本語", "a😀b", "ü", "u", "a much longer key of more than 32 bytes!!")),
        List.of(strings("p", "", "日本", "a😀b", "u", "ü", null, "a much longer key of more than 32 bytes!!")),
        plain(1), null);
    assertEquals(5, o.pairs().length);
  }

  @Test
  void selectionKeepsOnlySelectedProbeRows() {
    Outcome o = join(List.of(ints("b", 1, 2, 3, 3)), List.of(ints("p", 1, 2, 3, 3, 1)), plain(1),
        new boolean[] {true, false, true, false, false});
    assertArrayEquals(new long[] {0L, 2L << 32 | 2, 2L << 32 | 3}, o.pairs());
  }

  @Test
  void bucketStatisticsDescribeSkew() {
    try (IntVector keys = ints("b", 7, 7, 7, 7, 1, 2);
        DeviceBatch b = ArrowUpload.upload(backend, List.of(keys), stream);
        HashTable t = backend.joins().buildMulti(JoinKeys.of(b.column(0)), stream)) {
      assertNull(backend.joins().buildUnique(JoinKeys.of(b.column(0)), stream));
      assertEquals(6, t.entryCount());
      assertTrue(t.maxBucketLength() >= 4);
      assertEquals(8, t.bucketCount());
      assertEquals((double) t.entryCount() / t.nonEmptyBuckets(), t.meanBucketLength());
    }
  }

  @Test
  void markRowsSetsTheListedRowsAndKeepsTheOthers() {
    boolean[] before = {true, false, false, false, false, false, false, false, false, true, false};
    try (DeviceBuffer bitmap = JoinTesting.bitmap(backend, before, stream);
        DeviceBuffer rows = JoinTesting.upload(backend, new int[] {3, 8, 3, 10, 0}, stream)) {
      backend.joins().markRows(bitmap, rows, 4, stream);
      boolean[] after = before.clone();
      after[3] = after[8] = after[10] = true;
      assertArrayEquals(bits(after), JoinTesting.bytes(backend, bitmap, 2, stream), "row 0 is past the count");
    }
  }

  @Test
  void gatherWithMinusOneGivesNullRows() {
    try (IntVector i = ints("i", 1, null, 3);
        VarCharVector s = strings("s", "a", "bé", null);
        DeviceBatch batch = ArrowUpload.upload(backend, List.of(i, s), stream);
        DeviceBuffer rows = JoinTesting.upload(backend, new int[] {2, -1, 0, 1, 0}, stream);
        DeviceBatch out = backend.joins().gather(batch, rows, 5, stream)) {
      List<FieldVector> back;
      try (ArrowDownload d = ArrowDownload.begin(backend, out, List.of("i", "s"), pageable, stream)) {
        back = d.complete();
      }
      try {
        assertEquals(Arrays.asList(3, null, 1, null, 1), Arrays.asList(((IntVector) back.get(0)).getObject(0),
            back.get(0).getObject(1), back.get(0).getObject(2), back.get(0).getObject(3), back.get(0).getObject(4)));
        VarCharVector str = (VarCharVector) back.get(1);
        assertNull(str.getObject(0));
        assertNull(str.getObject(1));
        assertEquals("a", str.getObject(2).toString());
        assertEquals("bé", str.getObject(3).toString());
        assertNotNull(str.getObject(4));
      } finally {
        Closeables.closeAll(back);
      }
    }
  }

  @Test
  void hashesAgreeAcrossIntWidths() {
    try (IntVector i = ints("i", 5, -1);
        BigIntVector l = longs("l", 5L, -1L);
        DeviceBatch b = ArrowUpload.upload(backend, List.of(i, l), stream);
        DeviceBuffer hi = backend.allocate(16, stream);
        DeviceBuffer hl = backend.allocate(16, stream)) {
      backend.joins().hash(JoinKeys.of(b.column(0)), hi, stream);
      backend.joins().hash(JoinKeys.of(b.column(1)), hl, stream);
      assertArrayEquals(JoinTesting.bytes(backend, hl, 16, stream), JoinTesting.bytes(backend, hi, 16, stream));
    }
  }
}
