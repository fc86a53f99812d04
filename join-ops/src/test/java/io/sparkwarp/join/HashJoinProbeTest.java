package io.sparkwarp.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.join.JoinTesting;
import io.sparkwarp.kernels.join.ProbeBatch;
import io.sparkwarp.kernels.join.ProbeResult;
import io.sparkwarp.kernels.join.ProbeVariant;
import io.sparkwarp.kernels.join.TableKind;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;

/** Table and variant choice, and chunk iteration with summed metrics, on the host backend. */
class HashJoinProbeTest extends BackendTestBase {
  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  private IntVector ints(int... values) {
    IntVector v = new IntVector("k", pageable);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) v.set(i, values[i]);
    v.setValueCount(values.length);
    return v;
  }

  /** All pairs of the probe iterated at {@code capacity}, and its metrics. */
  private record Run(long[] pairs, ProbeMetrics metrics) {}

  private Run run(HashJoinBuild build, DeviceBatch probe, DeviceBuffer selection, int capacity, ProbeVariant forced) {
    try (ProbeBatch batch = new ProbeBatch(backend, JoinKeys.of(probe.column(0)), selection, false, stream)) {
      HashJoinProbe p = new HashJoinProbe(backend, build, batch, capacity, forced, null, stream);
      List<Long> pairs = new ArrayList<>();
      while (p.hasNext()) {
        try (ProbeResult r = p.next()) {
          assertTrue(r.pairCount() <= capacity);
          int[] pr = JoinTesting.ints(backend, r.probeRows(), r.pairCount(), stream);
          int[] br = JoinTesting.ints(backend, r.buildRows(), r.pairCount(), stream);
          for (int i = 0; i < pr.length; i++) pairs.add((long) pr[i] << 32 | br[i]);
        }
      }
      return new Run(pairs.stream().mapToLong(Long::longValue).sorted().toArray(), p.metrics());
    }
  }

  @Test
  void uniqueKeysProbeNaiveAndSkewProbesPushDown() {
    IntVector unique = ints(1, 2, 3, 4);
    IntVector skewed = ints(1, 1, 1, 1, 1, 1, 2, 3);
    IntVector probe = ints(1, 2, 5, 1);
    List<FieldVector> vectors = List.of(unique, skewed, probe);
    try (DeviceBatch u = ArrowUpload.upload(backend, List.of(unique), stream);
        DeviceBatch s = ArrowUpload.upload(backend, List.of(skewed), stream);
        DeviceBatch p = ArrowUpload.upload(backend, List.of(probe), stream);
        HashJoinBuild ub = HashJoinBuild.build(backend, JoinKeys.of(u.column(0)), HashJoinBuild.Choice.AUTO, stream);
        HashJoinBuild forced = HashJoinBuild.build(backend, JoinKeys.of(u.column(0)), HashJoinBuild.Choice.MULTI,
            stream);
        HashJoinBuild sb = HashJoinBuild.build(backend, JoinKeys.of(s.column(0)), HashJoinBuild.Choice.AUTO, stream)) {
      assertEquals(TableKind.UNIQUE, ub.kind());
      assertEquals(TableKind.MULTI, forced.kind());
      assertEquals(TableKind.MULTI, sb.kind());
      Run r = run(ub, p, null, 100, null);
      assertEquals(ProbeVariant.NAIVE, r.metrics().variant());
      assertArrayEquals(new long[] {0L, 1L << 32 | 1, 3L << 32}, r.pairs());
      Run skew = run(sb, p, null, 100, null);
      assertEquals(ProbeVariant.PUSH_DOWN, skew.metrics().variant());
      assertEquals(13, skew.metrics().matches());
      assertEquals(4, skew.metrics().rows());
      assertEquals(1, skew.metrics().chunks());
      assertTrue(Double.isNaN(skew.metrics().laneUtilisation()), "the host backend has no lanes to measure");
      Run tiny = run(sb, p, null, 2, ProbeVariant.NAIVE);
      assertArrayEquals(skew.pairs(), tiny.pairs(), "chunks of 2 pairs resume exactly where the last one stopped");
      assertTrue(tiny.metrics().chunks() >= 7, tiny.metrics().chunks() + " chunks");
      try (DeviceBuffer selection = JoinTesting.bitmap(backend, new boolean[] {false, true, true, true}, stream)) {
        Run selected = run(ub, p, selection, 100, null);
        assertEquals(ProbeVariant.REFILL, selected.metrics().variant());
        assertArrayEquals(new long[] {1L << 32 | 1, 3L << 32}, selected.pairs());
      }
    } finally {
      Closeables.closeAll(vectors);
    }
  }
}
