package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import io.sparkwarp.kernels.testing.RowIds;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * select_top.cu against the host reference on fresh random input: the prefixes of every key type in both directions
 * and null placements, the cutoff the histograms lead to and its candidates, and whole top-N batches, at sizes around
 * warp and block boundaries and past a million rows.
 */
@Tag("gpu")
class CudaTopSelectMatchesHostTest extends CudaVsHostTestBase {
  @Test
  void prefixesOfEveryKeyTypeMatch() {
    for (int rows : new int[] {1, 33, 100_003}) {
      for (DeviceType type : SortTesting.types()) {
        try (FieldVector column = SortTesting.randomKeyColumn(type, rows, rnd, allocator)) {
          for (int how = 0; how < 4; how++) {
            boolean ascending = how < 2;
            boolean nullsFirst = how % 2 == 0;
            String what = rows + " rows of " + type + (ascending ? " asc" : " desc") + " nulls first " + nullsFirst;
            assertArrayEquals(prefixes(host, column, ascending, nullsFirst), prefixes(cuda, column, ascending,
                nullsFirst), what);
          }
        }
      }
    }
  }

  @Test
  void cutoffsAndCandidatesMatch() {
    for (int rows : new int[] {1025, 1_000_003}) {
      for (DeviceType type : List.of(DeviceType.LONG, DeviceType.INT, DeviceType.STRING)) {
        int distinct = rnd.nextBoolean() ? rows : 50;
        try (FieldVector column = SortTesting.keyColumn(type, rows, distinct, 0.05, rnd, allocator)) {
          for (int limit : new int[] {1, 10, 100}) {
            String what = rows + " rows of " + type + ", " + distinct + " distinct, limit " + limit;
            assertArrayEquals(candidates(host, column, limit), candidates(cuda, column, limit), what);
          }
        }
      }
    }
  }

  @Test
  void topBatchesMatch() {
    int rows = 300_007;
    List<FieldVector> columns = new ArrayList<>();
    try {
      for (DeviceType type : SortTesting.types()) columns.add(SortTesting.randomKeyColumn(type, rows, rnd, allocator));
      try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
          DeviceBatch onCuda = ArrowUpload.upload(cuda, columns, cs);
          DeviceBatch onHost = ArrowUpload.upload(host, columns, hs)) {
        for (int trial = 0; trial < 6; trial++) {
          List<SortKey> keys = SortTesting.randomKeys(columns.size(), 3, rnd);
          for (int limit : new int[] {1, 10, 1000}) {
            String what = "top " + limit + " by " + SortTesting.describe(columns, keys);
            assertSameRows(TopSelect.top(host, onHost, keys, limit, hs), hs, TopSelect.top(cuda, onCuda, keys, limit,
                cs), cs, SortTesting.names(columns), what);
          }
        }
      }
    } finally {
      Closeables.closeAll(columns);
    }
  }

  private long[] prefixes(Backend backend, FieldVector column, boolean ascending, boolean nullsFirst) {
    int rows = column.getValueCount();
    try (DeviceStream stream = backend.newStream();
        DeviceBatch batch = ArrowUpload.upload(backend, List.of(column), stream);
        DeviceBuffer prefixes = backend.allocate(8L * rows, stream)) {
      backend.topSelect().prefixes(batch.column(0), ascending, nullsFirst, rows, prefixes, stream);
      return RowIds.downloadWords(backend, prefixes, rows, stream);
    }
  }

  /** The candidates' row ids of the top {@code limit} of {@code column}, descending, nulls last. */
  private int[] candidates(Backend backend, FieldVector column, int limit) {
    int rows = column.getValueCount();
    try (DeviceStream stream = backend.newStream();
        DeviceBatch batch = ArrowUpload.upload(backend, List.of(column), stream);
        DeviceBuffer prefixes = backend.allocate(8L * rows, stream)) {
      TopSelectPrimitives select = backend.topSelect();
      select.prefixes(batch.column(0), false, false, rows, prefixes, stream);
      TopSelect.Cutoff cutoff = TopSelect.cutoff(select, prefixes, rows, limit, stream);
      try (DeviceBuffer ids = backend.allocate(4L * Math.max(1, cutoff.candidates()), stream)) {
        select.candidates(prefixes, rows, cutoff.prefix(), ids, stream);
        return RowIds.download(backend, ids, cutoff.candidates(), stream);
      }
    }
  }

  /** Asserts that both batches (closed here) hold the same rows. */
  private void assertSameRows(DeviceBatch expected, DeviceStream hs, DeviceBatch actual, DeviceStream cs,
      List<String> names, String what) {
    assertEquals(expected.rowCount(), actual.rowCount(), what);
    try (expected; actual; ArrowDownload fromHost = ArrowDownload.begin(host, expected, names, allocator, hs);
        ArrowDownload fromCuda = ArrowDownload.begin(cuda, actual, names, allocator, cs)) {
      List<FieldVector> want = fromHost.complete();
      List<FieldVector> got = fromCuda.complete();
      try {
        for (int c = 0; c < names.size(); c++) {
          VectorAssertions.assertVectorEquals(want.get(c), got.get(c), what + ", column " + c);
        }
      } finally {
        Closeables.closeAll(want);
        Closeables.closeAll(got);
      }
    }
  }
}
