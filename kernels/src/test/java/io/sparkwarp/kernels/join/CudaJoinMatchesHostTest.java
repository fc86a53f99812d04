package io.sparkwarp.kernels.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every join primitive's CUDA kernels against the host reference on fresh random input (sizes around warp and
 * block boundaries; unique keys, duplicates with one hot key and nulls, multi-column keys with null-safe strings;
 * the hot key of the largest size is heavy enough for push-down to hand it to the grid, sw_join_probe_heavy):
 * hashes and gathers byte for byte, equal table kinds and bucket statistics, and for every probe variant, with and
 * without a selection, at a small and a large chunk capacity, the same pairs (as sorted multisets) and the same
 * matched bitmaps on both sides; and the marking of rows from a list of row ids.
 */
@Tag("gpu")
class CudaJoinMatchesHostTest extends CudaVsHostTestBase {
  static final int[] SIZES = {0, 1, 31, 32, 33, 1000, 100_003};

  private enum Shape { UNIQUE, SKEWED, MULTI_COLUMN }

  /** Key columns of {@code n} rows: a permutation, or keys with a hot key, nulls and duplicates. */
  private List<FieldVector> keys(Shape shape, int n, boolean probe) {
    int domain = Math.max(1, n / 2);
    // a tenth of the build rows: at 100,003 rows the hot key's 10 K candidates exceed push-down's heavy range
    double hot = probe ? 0.0005 : 0.1;
    List<FieldVector> out = new ArrayList<>();
    switch (shape) {
      case UNIQUE -> {
        IntVector v = new IntVector("k", allocator);
        v.allocateNew(n);
        for (int i = 0; i < n; i++) v.set(i, probe ? rnd.nextInt(2 * n + 1) : (int) ((i * 2654435761L) % (2L * n)));
        v.setValueCount(n);
        out.add(v);
      }
      case SKEWED -> {
        BigIntVector v = new BigIntVector("k", allocator);
        v.allocateNew(n);
        for (int i = 0; i < n; i++) {
          double u = rnd.nextDouble();
          if (u < 0.03) v.setNull(i);
          else v.set(i, u < 0.03 + hot ? -7 : rnd.nextInt(domain));
        }
        v.setValueCount(n);
        out.add(v);
      }
      case MULTI_COLUMN -> {
        IntVector a = new IntVector("a", allocator);
        VarCharVector s = new VarCharVector("s", allocator);
        a.allocateNew(n);
        s.allocateNew();
        for (int i = 0; i < n; i++) {
          a.set(i, rnd.nextInt(Math.max(1, n / 8)));
          if (rnd.nextInt(20) == 0) s.setNull(i);
          else s.setSafe(i, JoinTesting.word(rnd));
        }
        a.setValueCount(n);
        s.setValueCount(n);
        out.add(a);
        out.add(s);
      }
    }
    return out;
  }

  private static List<Boolean> nullSafe(Shape shape) {
    return shape == Shape.MULTI_COLUMN ? List.of(false, true) : List.of(false);
  }

  /** One side on one backend. */
  private record Side(DeviceBatch batch, JoinKeys keys) implements AutoCloseable {
    @Override
    public void close() {
      batch.close();
    }
  }

  private static Side upload(Backend backend, List<FieldVector> vectors, List<Boolean> nullSafe, DeviceStream s) {
    DeviceBatch batch = ArrowUpload.upload(backend, vectors, s);
    return new Side(batch, new JoinKeys(batch.columns(), nullSafe));
  }

  @Test
  void everyPrimitiveMatches() {
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
      for (Shape shape : Shape.values()) {
        for (int n : SIZES) {
          int probeRows = n == 0 ? 0 : n + rnd.nextInt(n);
          List<FieldVector> build = keys(shape, n, false);
          List<FieldVector> probe = keys(shape, probeRows, true);
          boolean[] selected = new boolean[probeRows];
          for (int i = 0; i < probeRows; i++) selected[i] = rnd.nextInt(3) > 0;
          try (Side cb = upload(cuda, build, nullSafe(shape), cs); Side hb = upload(host, build, nullSafe(shape), hs);
              Side cp = upload(cuda, probe, nullSafe(shape), cs); Side hp = upload(host, probe, nullSafe(shape), hs);
              DeviceBuffer cSel = JoinTesting.bitmap(cuda, selected, cs);
              DeviceBuffer hSel = JoinTesting.bitmap(host, selected, hs)) {
            String what = shape + ", " + n + " build rows, " + probeRows + " probe rows";
            assertHashesMatch(cb, hb, cs, hs, what);
            assertGatherMatches(cb, hb, cs, hs, what);
            try (HashTable cu = cuda.joins().buildUnique(cb.keys(), cs);
                HashTable hu = host.joins().buildUnique(hb.keys(), hs)) {
              assertEquals(hu == null, cu == null, "unique table, " + what);
              if (cu != null) {
                assertEquals(hu.entryCount(), cu.entryCount(), what);
                assertProbesMatch(cu, hu, cp, hp, cSel, hSel, cs, hs, what);
              }
            }
            try (HashTable cm = cuda.joins().buildMulti(cb.keys(), cs);
                HashTable hm = host.joins().buildMulti(hb.keys(), hs)) {
              assertEquals(hm.toString(), cm.toString(), "multi-match table statistics, " + what);
              assertProbesMatch(cm, hm, cp, hp, cSel, hSel, cs, hs, what);
            }
          } finally {
            Closeables.closeAll(build);
            Closeables.closeAll(probe);
          }
        }
      }
    }
  }

  @Test
  void markRowsMatches() {
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
      for (int n : SIZES) {
        boolean[] before = new boolean[n];
        for (int i = 0; i < n; i++) before[i] = rnd.nextInt(7) == 0;
        // duplicates on purpose: a row kept by several pairs is marked once
        int[] rows = new int[n == 0 ? 0 : 3 * n / 2];
        for (int i = 0; i < rows.length; i++) rows[i] = rnd.nextInt(n);
        try (DeviceBuffer cBits = JoinTesting.bitmap(cuda, before, cs);
            DeviceBuffer hBits = JoinTesting.bitmap(host, before, hs);
            DeviceBuffer cRows = JoinTesting.upload(cuda, rows, cs);
            DeviceBuffer hRows = JoinTesting.upload(host, rows, hs)) {
          cuda.joins().markRows(cBits, cRows, rows.length, cs);
          host.joins().markRows(hBits, hRows, rows.length, hs);
          assertArrayEquals(JoinTesting.bytes(host, hBits, (n + 7) / 8, hs),
              JoinTesting.bytes(cuda, cBits, (n + 7) / 8, cs), "marked rows of " + n);
        }
      }
    }
  }

  private void assertHashesMatch(Side c, Side h, DeviceStream cs, DeviceStream hs, String what) {
    int n = c.keys().rowCount();
    try (DeviceBuffer ch = cuda.allocate(8L * n, cs); DeviceBuffer hh = host.allocate(8L * n, hs)) {
      cuda.joins().hash(c.keys(), ch, cs);
      host.joins().hash(h.keys(), hh, hs);
      assertArrayEquals(JoinTesting.bytes(host, hh, 8L * n, hs), JoinTesting.bytes(cuda, ch, 8L * n, cs),
          "hashes, " + what);
    }
  }

  private void assertGatherMatches(Side c, Side h, DeviceStream cs, DeviceStream hs, String what) {
    int n = c.keys().rowCount();
    int count = 2 * n + 1;
    int[] ids = new int[count];
    for (int i = 0; i < count; i++) ids[i] = n == 0 || rnd.nextInt(5) == 0 ? -1 : rnd.nextInt(n);
    try (DeviceBuffer cIds = JoinTesting.upload(cuda, ids, cs); DeviceBuffer hIds = JoinTesting.upload(host, ids, hs);
        DeviceBatch cg = cuda.joins().gather(c.batch(), cIds, count, cs);
        DeviceBatch hg = host.joins().gather(h.batch(), hIds, count, hs)) {
      for (int i = 0; i < cg.columnCount(); i++) {
        DeviceColumn x = cg.column(i);
        DeviceColumn y = hg.column(i);
        assertArrayEquals(JoinTesting.bytes(host, y.validity(), (count + 7) / 8, hs),
            JoinTesting.bytes(cuda, x.validity(), (count + 7) / 8, cs), "gathered validity " + i + ", " + what);
        if (x.type().isVariableWidth()) {
          assertArrayEquals(JoinTesting.bytes(host, y.offsets(), 4L * (count + 1), hs),
              JoinTesting.bytes(cuda, x.offsets(), 4L * (count + 1), cs), "gathered offsets " + i + ", " + what);
        }
        assertEquals(y.dataBytes(), x.dataBytes(), what);
        assertArrayEquals(JoinTesting.bytes(host, y.data(), y.dataBytes(), hs),
            JoinTesting.bytes(cuda, x.data(), x.dataBytes(), cs), "gathered values " + i + ", " + what);
      }
    }
  }

  private void assertProbesMatch(HashTable ct, HashTable ht, Side cp, Side hp, DeviceBuffer cSel, DeviceBuffer hSel,
      DeviceStream cs, DeviceStream hs, String what) {
    int rows = cp.keys().rowCount();
    long buildBytes = (ct.rowCount() + 7) / 8;
    for (ProbeVariant variant : ProbeVariant.values()) {
      if (variant == ProbeVariant.PUSH_DOWN && ct.isUnique()) continue;
      for (boolean select : new boolean[] {false, true}) {
        for (int capacity : new int[] {997, 1 << 26}) {
          boolean[] none = new boolean[ct.rowCount()];
          try (DeviceBuffer cBuild = JoinTesting.bitmap(cuda, none, cs);
              DeviceBuffer hBuild = JoinTesting.bitmap(host, none, hs);
              ProbeBatch cb = new ProbeBatch(cuda, cp.keys(), select ? cSel : null, true, cs);
              ProbeBatch hb = new ProbeBatch(host, hp.keys(), select ? hSel : null, true, hs)) {
            String how = variant + (select ? " with selection" : "") + " at capacity " + capacity + ", " + ct + ", "
                + what;
            assertArrayEquals(JoinTesting.probeAll(host, ht, hb, capacity, variant, hBuild, hs),
                JoinTesting.probeAll(cuda, ct, cb, capacity, variant, cBuild, cs), "pairs, " + how);
            assertArrayEquals(JoinTesting.bytes(host, hb.matches(), (rows + 7) / 8, hs),
                JoinTesting.bytes(cuda, cb.matches(), (rows + 7) / 8, cs), "probe matches, " + how);
            assertArrayEquals(JoinTesting.bytes(host, hBuild, buildBytes, hs),
                JoinTesting.bytes(cuda, cBuild, buildBytes, cs), "build matches, " + how);
          }
        }
      }
    }
  }
}
