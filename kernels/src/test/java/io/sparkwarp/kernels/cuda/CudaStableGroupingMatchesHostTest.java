package io.sparkwarp.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import io.sparkwarp.kernels.testing.RowIds;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * grouping.cu's stable grouping (CudaStableGrouping) against the host twin (HostStableGrouping) on fresh random ids,
 * through both of its callers: the sort's digit passes (carrying values, or row indices where there are none) and
 * the shuffle's grouping by partition (with bucket starts). Row counts around the block path's chunk of 4096 rows
 * and warp boundaries, bucket counts on both sides of the block path's 256, ids uniform, half of them 0, or all one.
 */
@Tag("gpu")
class CudaStableGroupingMatchesHostTest extends CudaVsHostTestBase {
  private static final int[] ROWS = {1, 31, 4095, 4096, 4097, 1_000_003};
  private static final int[] BUCKETS = {1, 2, 200, 256, 257, 4096};
  /** A byte the destinations start as: nothing past the rows may change it. */
  private static final byte UNWRITTEN = (byte) 0xA5;

  private enum Ids { UNIFORM, SKEWED, ONE }

  @Test
  void digitGroupingMatchesWithAndWithoutValues() {
    forEachCase((rows, buckets, kind) -> {
      int[] ids = ids(rows, buckets, kind);
      int[] values = IntStream.range(0, rows).map(i -> rnd.nextInt()).toArray();
      for (boolean withValues : new boolean[] {false, true}) {
        String what = rows + " rows into " + buckets + ", " + kind + (withValues ? ", values" : ", row indices");
        assertArrayEquals(groupByDigit(host, ids, buckets, withValues ? values : null),
            groupByDigit(cuda, ids, buckets, withValues ? values : null), what);
      }
    });
  }

  @Test
  void partitionGroupingMatchesWithStarts() {
    forEachCase((rows, buckets, kind) -> {
      int[] ids = ids(rows, buckets, kind);
      String what = rows + " rows into " + buckets + ", " + kind;
      int[][] expected = groupByPartition(host, ids, buckets);
      int[][] actual = groupByPartition(cuda, ids, buckets);
      assertArrayEquals(expected[0], actual[0], what + ": starts");
      assertArrayEquals(expected[1], actual[1], what + ": order");
    });
  }

  private interface Case {
    void run(int rows, int buckets, Ids kind);
  }

  private static void forEachCase(Case c) {
    for (int rows : ROWS) {
      for (int buckets : BUCKETS) {
        for (Ids kind : Ids.values()) c.run(rows, buckets, kind);
      }
    }
  }

  private int[] ids(int rows, int buckets, Ids kind) {
    int one = rnd.nextInt(buckets);
    IntUnaryOperator id = switch (kind) {
      case UNIFORM -> i -> rnd.nextInt(buckets);
      case SKEWED -> i -> rnd.nextBoolean() ? 0 : rnd.nextInt(buckets);
      case ONE -> i -> one;
    };
    return IntStream.range(0, rows).map(id).toArray();
  }

  /** The rows + 1 values of a digit pass's destination: the grouped rows, then one that must stay unwritten. */
  private static int[] groupByDigit(Backend backend, int[] ids, int buckets, int[] values) {
    try (DeviceStream stream = backend.newStream();
        DeviceBuffer digits = RowIds.upload(backend, ids, stream);
        DeviceBuffer order = values == null ? null : RowIds.upload(backend, values, stream);
        DeviceBuffer out = backend.allocate(4L * (ids.length + 1), stream)) {
      backend.fill(out, 0, 4L * (ids.length + 1), UNWRITTEN, stream);
      backend.sorts().groupByDigit(digits, ids.length, buckets, order, out, stream);
      return RowIds.download(backend, out, ids.length + 1, stream);
    }
  }

  /** {starts, the rows + 1 values of the order} of grouping by partition. */
  private static int[][] groupByPartition(Backend backend, int[] ids, int partitions) {
    try (DeviceStream stream = backend.newStream();
        DeviceBuffer onDevice = RowIds.upload(backend, ids, stream);
        DeviceBuffer order = backend.allocate(4L * (ids.length + 1), stream)) {
      backend.fill(order, 0, 4L * (ids.length + 1), UNWRITTEN, stream);
      int[] starts = backend.partitions().groupByPartition(onDevice, ids.length, partitions, order, stream);
      return new int[][] {starts, RowIds.download(backend, order, ids.length + 1, stream)};
    }
  }
}
