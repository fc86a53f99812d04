package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * sort.cu and grouping.cu against the host reference on fresh random batches with ties: the order, the sorted batch
 * and top-N by key combinations over every type (strings, binaries and 128-bit decimals among them, NaN, -0.0,
 * nulls), at sizes around warp and tile boundaries up to two million rows.
 */
@Tag("gpu")
class CudaSortMatchesHostTest extends CudaVsHostTestBase {
  private static final int[] SIZES = {0, 1, 33, 100_003, 2_000_003};
  /** The batch's columns; the keys below index them. */
  private static final List<DeviceType> TYPES = List.of(DeviceType.INT, DeviceType.LONG, DeviceType.DOUBLE,
      DeviceType.FLOAT, DeviceType.STRING, DeviceType.BINARY, DeviceType.decimal(30, 4), DeviceType.decimal(18, 4),
      DeviceType.DATE, DeviceType.timestamp("UTC"), DeviceType.BOOLEAN, DeviceType.SHORT, DeviceType.BYTE);
  private static final List<List<SortKey>> KEYS = List.of(
      List.of(new SortKey(0, true, true)),
      List.of(new SortKey(4, false, false), new SortKey(1, true, true)),
      List.of(new SortKey(6, true, false), new SortKey(2, false, true), new SortKey(8, true, false)),
      List.of(new SortKey(10, false, false), new SortKey(5, true, true), new SortKey(3, false, false)),
      List.of(new SortKey(7, true, true), new SortKey(9, false, true), new SortKey(11, true, false),
          new SortKey(12, false, true)),
      List.of(new SortKey(4, true, true), new SortKey(6, false, false)));

  @Test
  void orderSortAndTopMatch() {
    for (int rows : SIZES) {
      List<FieldVector> columns = new ArrayList<>();
      try {
        for (DeviceType type : TYPES) columns.add(SortTesting.randomKeyColumn(type, rows, rnd, allocator));
        try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
            DeviceBatch onCuda = ArrowUpload.upload(cuda, columns, cs);
            DeviceBatch onHost = ArrowUpload.upload(host, columns, hs)) {
          for (List<SortKey> keys : KEYS) {
            String what = rows + " rows by " + SortTesting.describe(columns, keys);
            assertArrayEquals(SortTesting.order(host, onHost, keys, hs), SortTesting.order(cuda, onCuda, keys, cs),
                what + ": order");
            for (int limit : new int[] {0, 1, 1000, rows + 1}) {
              assertSameRows(columns, DeviceSort.top(host, onHost, keys, limit, hs),
                  DeviceSort.top(cuda, onCuda, keys, limit, cs), hs, cs, what + ", top " + limit);
            }
            assertSameRows(columns, DeviceSort.sort(host, onHost, keys, hs), DeviceSort.sort(cuda, onCuda, keys, cs),
                hs, cs, what + ", sorted");
          }
        }
      } finally {
        Closeables.closeAll(columns);
      }
    }
  }

  @Test
  void rangePartitionsAreSparks() {
    for (int rows : new int[] {1, 33, 100_003, 400_009}) {
      List<FieldVector> columns = new ArrayList<>();
      try {
        for (DeviceType type : TYPES) columns.add(SortTesting.randomKeyColumn(type, rows, rnd, allocator));
        try (DeviceStream cs = cuda.newStream(); DeviceBatch onCuda = ArrowUpload.upload(cuda, columns, cs)) {
          for (List<SortKey> keys : KEYS) {
            for (int maxBounds : new int[] {1, 199, 4000}) {
              SortTesting.assertRangePartitioning(cuda, columns, onCuda, keys, maxBounds, allocator, cs,
                  rows + " rows by " + SortTesting.describe(columns, keys));
            }
          }
        }
      } finally {
        Closeables.closeAll(columns);
      }
    }
  }

  /** Downloads both batches (closing them) and compares them column by column. */
  private void assertSameRows(List<FieldVector> input, DeviceBatch fromHost, DeviceBatch fromCuda, DeviceStream hs,
      DeviceStream cs, String what) {
    List<FieldVector> expected = download(host, fromHost, input, hs);
    try {
      List<FieldVector> actual = download(cuda, fromCuda, input, cs);
      try {
        for (int c = 0; c < input.size(); c++) {
          VectorAssertions.assertVectorEquals(expected.get(c), actual.get(c), what + ", column " + c);
        }
      } finally {
        Closeables.closeAll(actual);
      }
    } finally {
      Closeables.closeAll(expected);
    }
  }

  private List<FieldVector> download(Backend backend, DeviceBatch batch, List<FieldVector> input,
      DeviceStream stream) {
    try (batch; ArrowDownload download = ArrowDownload.begin(backend, batch, SortTesting.names(input), allocator,
        stream)) {
      return download.complete();
    }
  }
}
