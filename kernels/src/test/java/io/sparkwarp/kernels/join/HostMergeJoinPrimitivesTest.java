package io.sparkwarp.kernels.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The host merge join primitives against a nested-loop oracle, in every key shape, with empty sides, at sizes
 * around a warp and beyond, in chunks of 1, 7 and all pairs: the pairs, their order (by the left rows' keys), the
 * counts and offsets, and both sides' match bitmaps.
 */
class HostMergeJoinPrimitivesTest extends BackendTestBase {
  private final Random rnd = new Random();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @ParameterizedTest
  @EnumSource(MergeJoinTesting.Shape.class)
  void pairsAndBitmapsMatchNestedLoops(MergeJoinTesting.Shape shape) {
    int[][] sizes = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {33, 31}, {400, 700}, {2000, 1500}};
    for (int[] size : sizes) {
      int rows = size[0] + size[1];
      List<FieldVector> keys = MergeJoinTesting.keys(shape, rows, size[0], transfer, rnd);
      try {
        long[] expected = MergeJoinTesting.expectedPairs(keys, shape.nullSafe(), size[0]);
        for (int chunk : new int[] {1, 7, Integer.MAX_VALUE}) {
          MergeJoinTesting.Result r = MergeJoinTesting.run(backend, keys, shape.nullSafe(), size[0], chunk, stream);
          String what = shape + " " + size[0] + "x" + size[1] + " in chunks of " + chunk;
          assertArrayEquals(expected, r.sortedPairs(), what);
          assertEquals(expected.length, r.offsets()[rows], what);
          assertArrayEquals(MergeJoinTesting.bitmap(JoinTesting.matched(expected, size[0], true)), r.leftMatched(),
              "left matches, " + what);
          assertArrayEquals(MergeJoinTesting.bitmap(JoinTesting.matched(expected, size[1], false)),
              r.rightMatched(), "right matches, " + what);
          // left rows come out in sorted order: all pairs of a left row together, never revisited
          Set<Integer> done = new HashSet<>();
          int current = -1;
          for (long p : r.pairs()) {
            int l = (int) (p >>> 32);
            if (l != current) {
              assertEquals(true, done.add(l), "left row " + l + " revisited, " + what);
              current = l;
            }
          }
        }
      } finally {
        Closeables.closeAll(keys);
      }
    }
  }

  @Test
  void argumentsAreChecked() {
    List<FieldVector> keys = MergeJoinTesting.keys(MergeJoinTesting.Shape.UNIQUE, 10, 4, transfer, rnd);
    try (DeviceBatch batch = ArrowUpload.upload(backend, keys, stream);
        DeviceBuffer ints = backend.allocate(40, stream); DeviceBuffer bits = backend.allocate(2, stream);
        DeviceBuffer offsets = backend.allocate(88, stream)) {
      JoinKeys k = JoinKeys.of(batch.column(0));
      MergeJoinPrimitives m = backend.mergeJoins();
      assertThrows(IllegalArgumentException.class, () -> m.matchRanges(k, ints, 11, ints, ints, bits, bits, stream));
      assertThrows(IndexOutOfBoundsException.class, () -> m.matchOffsets(ints, 11, offsets, stream));
      assertThrows(IllegalArgumentException.class,
          () -> m.expand(offsets, ints, ints, 10, 4, -1, 1, ints, ints, stream));
    } finally {
      Closeables.closeAll(keys);
    }
  }
}
