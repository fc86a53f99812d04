package io.sparkwarp.kernels.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import io.sparkwarp.kernels.testing.RowIds;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * partition.cu against the host reference on fresh random input: Spark's partition ids of every key type (nulls,
 * NaN, -0.0, multi-byte strings, 128-bit decimals) and round-robin ids (positions wrapping past the int range), and
 * the grouping, at sizes around warp and tile boundaries and
 * partition counts from 1 to more than the count matrix holds at the default tile length.
 */
@Tag("gpu")
class CudaPartitionMatchesHostTest extends CudaVsHostTestBase {
  private static final int[] SIZES = {0, 1, 31, 33, 1025, 100_003, 3_000_017};
  private static final int[] PARTITIONS = {1, 7, 200, 4099, 100_000};

  @Test
  void idsOfEveryKeyTypeMatch() {
    for (int rows : new int[] {1, 33, 100_003}) {
      List<FieldVector> columns = PartitionTesting.randomColumns(rows, rnd, allocator);
      try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
          DeviceBatch onCuda = ArrowUpload.upload(cuda, columns, cs);
          DeviceBatch onHost = ArrowUpload.upload(host, columns, hs)) {
        for (int c = 0; c < columns.size(); c++) {
          for (int partitions : new int[] {1, 200, 100_000}) {
            String what = rows + " rows of " + columns.get(c).getField().getType() + " into " + partitions;
            assertArrayEquals(ids(host, List.of(onHost.column(c)), rows, partitions, hs),
                ids(cuda, List.of(onCuda.column(c)), rows, partitions, cs), what);
          }
        }
        // every column a key at once: the running hash through all kinds
        assertArrayEquals(ids(host, onHost.columns(), rows, 977, hs), ids(cuda, onCuda.columns(), rows, 977, cs),
            rows + " rows, all keys");
        assertArrayEquals(ids(host, onHost.columns(), rows, 3, 0x5eed, hs),
            ids(cuda, onCuda.columns(), rows, 3, 0x5eed, cs), rows + " rows, all keys, another seed");
      } finally {
        Closeables.closeAll(columns);
      }
    }
  }

  @Test
  void roundRobinIdsMatch() {
    for (int rows : new int[] {1, 33, 100_003}) {
      for (int first : new int[] {0, 17, Integer.MAX_VALUE - 50_000}) {
        for (int partitions : new int[] {1, 3, 200}) {
          try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
            assertArrayEquals(roundRobinIds(host, rows, first, partitions, hs),
                roundRobinIds(cuda, rows, first, partitions, cs), rows + " rows from " + first + " into " + partitions);
          }
        }
      }
    }
  }

  @Test
  void groupingMatches() {
    for (int rows : SIZES) {
      for (int partitions : PARTITIONS) {
        int[] ids = PartitionTesting.skewedIds(rows, partitions, rnd);
        try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
          String what = rows + " rows into " + partitions;
          PartitionTesting.Grouping expected = PartitionTesting.stableGrouping(ids, partitions);
          int[][] cudaResult = group(cuda, ids, partitions, cs);
          assertArrayEquals(expected.starts(), cudaResult[0], what + ": starts");
          assertArrayEquals(expected.order(), cudaResult[1], what + ": order");
          int[][] hostResult = group(host, ids, partitions, hs);
          assertArrayEquals(hostResult[1], cudaResult[1], what + ": order against the host");
        }
      }
    }
  }

  @Test
  void partitionedBatchesMatch() {
    int rows = 200_003;
    List<FieldVector> columns = PartitionTesting.randomColumns(rows, rnd, allocator);
    int[] keys = {4, 12};  // a long and a string, Spark's usual join keys
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
        DeviceBatch onCuda = ArrowUpload.upload(cuda, columns, cs);
        DeviceBatch onHost = ArrowUpload.upload(host, columns, hs);
        PartitionedBatch fromCuda = PartitionedBatch.hash(cuda, onCuda, keys, 200, cs);
        PartitionedBatch fromHost = PartitionedBatch.hash(host, onHost, keys, 200, hs);
        ArrowDownload cudaDownload = ArrowDownload.begin(cuda, fromCuda.batch(), PartitionTesting.names(columns),
            allocator, cs);
        ArrowDownload hostDownload = ArrowDownload.begin(host, fromHost.batch(), PartitionTesting.names(columns),
            allocator, hs)) {
      assertArrayEquals(fromHost.starts(), fromCuda.starts());
      List<FieldVector> expected = hostDownload.complete();
      List<FieldVector> actual = cudaDownload.complete();
      try {
        for (int c = 0; c < columns.size(); c++) {
          VectorAssertions.assertVectorEquals(expected.get(c), actual.get(c), "column " + c);
        }
      } finally {
        Closeables.closeAll(expected);
        Closeables.closeAll(actual);
      }
    } finally {
      Closeables.closeAll(columns);
    }
  }

  private static int[] ids(Backend backend, List<DeviceColumn> keys, int rows, int partitions, DeviceStream stream) {
    return ids(backend, keys, rows, partitions, SparkMurmur3.SEED, stream);
  }

  private static int[] ids(Backend backend, List<DeviceColumn> keys, int rows, int partitions, int seed,
      DeviceStream stream) {
    try (DeviceBuffer ids = backend.allocate(4L * rows, stream)) {
      backend.partitions().hashPartitionIds(keys, rows, partitions, seed, ids, stream);
      return RowIds.download(backend, ids, rows, stream);
    }
  }

  private static int[] roundRobinIds(Backend backend, int rows, int first, int partitions, DeviceStream stream) {
    try (DeviceBuffer ids = backend.allocate(4L * rows, stream)) {
      backend.partitions().roundRobinPartitionIds(rows, first, partitions, ids, stream);
      return RowIds.download(backend, ids, rows, stream);
    }
  }

  /** {starts, order} of grouping {@code ids} on {@code backend}. */
  private static int[][] group(Backend backend, int[] ids, int partitions, DeviceStream stream) {
    try (DeviceBuffer onDevice = RowIds.upload(backend, ids, stream);
        DeviceBuffer order = backend.allocate(4L * Math.max(1, ids.length), stream)) {
      int[] starts = backend.partitions().groupByPartition(onDevice, ids.length, partitions, order, stream);
      return new int[][] {starts, RowIds.download(backend, order, ids.length, stream)};
    }
  }
}
