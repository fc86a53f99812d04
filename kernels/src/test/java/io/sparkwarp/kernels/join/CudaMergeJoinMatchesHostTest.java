package io.sparkwarp.kernels.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * merge_join.cu (run heads, bounds, match ranges, merge-path expansion) and the wide scan against the host reference
 * on fresh random input, in every key shape, at sizes around warp, block and merge-path share boundaries and the
 * largest with a hot key of about 2 K rows per side (4 M pairs over many blocks): the same counts, first matches, offsets,
 * pairs in the same order at two chunk sizes, and match bitmaps; and the nested-loop oracle at the small sizes.
 */
@Tag("gpu")
class CudaMergeJoinMatchesHostTest extends CudaVsHostTestBase {
  @ParameterizedTest
  @EnumSource(MergeJoinTesting.Shape.class)
  void everyPrimitiveMatches(MergeJoinTesting.Shape shape) {
    int[][] sizes = {{0, 0}, {0, 3}, {3, 0}, {1, 1}, {31, 33}, {1000, 1049}, {2048, 2047}, {100_003, 100_001}};
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
      for (int[] size : sizes) {
        int rows = size[0] + size[1];
        List<FieldVector> keys = MergeJoinTesting.keys(shape, rows, size[0], allocator, rnd);
        try {
          for (int chunk : new int[] {999, 1 << 24}) {
            String what = shape + " " + size[0] + "x" + size[1] + " in chunks of " + chunk;
            MergeJoinTesting.Result h = MergeJoinTesting.run(host, keys, shape.nullSafe(), size[0], chunk, hs);
            MergeJoinTesting.Result c = MergeJoinTesting.run(cuda, keys, shape.nullSafe(), size[0], chunk, cs);
            assertArrayEquals(h.counts(), c.counts(), "counts, " + what);
            assertArrayEquals(h.firstsWhereMatched(), c.firstsWhereMatched(), "first matches, " + what);
            assertArrayEquals(h.offsets(), c.offsets(), "offsets, " + what);
            assertArrayEquals(h.pairs(), c.pairs(), "pairs in order, " + what);
            assertArrayEquals(h.leftMatched(), c.leftMatched(), "left matches, " + what);
            assertArrayEquals(h.rightMatched(), c.rightMatched(), "right matches, " + what);
            if (rows <= 5000) {
              assertArrayEquals(MergeJoinTesting.expectedPairs(keys, shape.nullSafe(), size[0]), c.sortedPairs(),
                  "oracle, " + what);
            }
          }
        } finally {
          Closeables.closeAll(keys);
        }
      }
    }
  }
}
