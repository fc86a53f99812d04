package io.sparkwarp.kernels.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.BackendTestBase;
import io.sparkwarp.kernels.testing.RowIds;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/** The host reference of the partition primitives: a stable grouping, and batches regrouped without losing a row. */
class HostPartitionPrimitivesTest extends BackendTestBase {
  private final Random rnd = new Random();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void groupingIsStableAndComplete() {
    for (int rows : new int[] {0, 1, 33, 5000}) {
      for (int partitions : new int[] {1, 3, 200, 7000}) {
        int[] ids = PartitionTesting.skewedIds(rows, partitions, rnd);
        try (DeviceBuffer idsOnDevice = RowIds.upload(backend, ids, stream);
            DeviceBuffer order = backend.allocate(4L * Math.max(1, rows), stream)) {
          int[] starts = backend.partitions().groupByPartition(idsOnDevice, rows, partitions, order, stream);
          PartitionTesting.Grouping expected = PartitionTesting.stableGrouping(ids, partitions);
          String what = rows + " rows into " + partitions;
          assertArrayEquals(expected.starts(), starts, what + ": starts");
          assertArrayEquals(expected.order(), RowIds.download(backend, order, rows, stream), what + ": order");
        }
      }
    }
  }

  @Test
  void partitionedBatchHoldsEachPartitionsRowsInInputOrder() {
    int rows = 3000;
    int partitions = 13;
    List<FieldVector> input = PartitionTesting.randomColumns(rows, rnd, pageable);
    int[] keys = {3, 12, input.size() - 1};  // an int, a string and a 128-bit decimal
    try (DeviceBatch batch = ArrowUpload.upload(backend, input, stream);
        DeviceBuffer ids = backend.allocate(4L * rows, stream)) {
      backend.partitions().hashPartitionIds(List.of(batch.column(keys[0]), batch.column(keys[1]),
          batch.column(keys[2])), rows, partitions, ids, stream);
      int[] hostIds = RowIds.download(backend, ids, rows, stream);
      PartitionTesting.Grouping expected = PartitionTesting.stableGrouping(hostIds, partitions);
      try (PartitionedBatch grouped = PartitionedBatch.hash(backend, batch, keys, partitions, stream)) {
        assertGroupedAs(grouped, input, expected);
      }
    } finally {
      Closeables.closeAll(input);
    }
  }

  @Test
  void idsAreSparksPmodOfTheHash() {
    int rows = 500;
    List<FieldVector> input = PartitionTesting.randomColumns(rows, rnd, pageable);
    try (DeviceBatch batch = ArrowUpload.upload(backend, input, stream);
        DeviceBuffer ids = backend.allocate(4L * rows, stream)) {
      backend.partitions().hashPartitionIds(List.of(batch.column(4)), rows, 7, ids, stream);  // the long column
      int[] actual = RowIds.download(backend, ids, rows, stream);
      FieldVector longs = input.get(4);
      for (int i = 0; i < rows; i++) {
        int h = longs.isNull(i) ? SparkMurmur3.SEED
            : SparkMurmur3.hashLong(MemoryUtil.getLong(longs.getDataBufferAddress() + 8L * i), SparkMurmur3.SEED);
        assertEquals(Math.floorMod(h, 7), actual[i], "row " + i);
      }
    } finally {
      Closeables.closeAll(input);
    }
  }

  /**
   * The rows of one Spark partition (one value of pmod(murmur3(key, 42), 200)) all share their seed-42 id modulo 2,
   * as they would modulo any divisor of 200; another seed splits them evenly, each id the murmur3 of that seed.
   */
  @Test
  void anotherSeedSplitsTheRowsOfOneSparkPartitionEvenly() {
    int rows = 4000;
    int seed = 0x5eed;
    long[] keys = new Random(16).longs().filter(k -> Math.floorMod(SparkMurmur3.hashLong(k, SparkMurmur3.SEED), 200)
        == 3).limit(rows).toArray();
    try (BigIntVector vector = new BigIntVector("k", pageable)) {
      vector.allocateNew(rows);
      for (int i = 0; i < rows; i++) vector.set(i, keys[i]);
      vector.setValueCount(rows);
      try (DeviceBatch batch = ArrowUpload.upload(backend, List.of(vector), stream);
          DeviceBuffer ids = backend.allocate(4L * rows, stream)) {
        backend.partitions().hashPartitionIds(batch.columns(), rows, 2, ids, stream);
        assertEquals(rows, countOf(RowIds.download(backend, ids, rows, stream), 1), "seed 42 follows Spark's split");
        backend.partitions().hashPartitionIds(batch.columns(), rows, 2, seed, ids, stream);
        int[] seeded = RowIds.download(backend, ids, rows, stream);
        for (int i = 0; i < rows; i++) {
          assertEquals(Math.floorMod(SparkMurmur3.hashLong(keys[i], seed), 2), seeded[i], "row " + i);
        }
        int ones = countOf(seeded, 1);
        assertTrue(Math.abs(ones - rows / 2) < rows / 20, ones + " of " + rows + " rows on the second device");
      }
    }
  }

  private static int countOf(int[] ids, int id) {
    return (int) Arrays.stream(ids).filter(i -> i == id).count();
  }

  /** Consecutive positions, wrapping past Integer.MAX_VALUE as Spark's int does, each taken modulo n, never negative. */
  @Test
  void roundRobinIdsFollowTheWrappingPositions() {
    int rows = 1000;
    for (int first : new int[] {0, 5, Integer.MAX_VALUE - 400}) {
      for (int partitions : new int[] {1, 3, 200}) {
        try (DeviceBuffer ids = backend.allocate(4L * rows, stream)) {
          backend.partitions().roundRobinPartitionIds(rows, first, partitions, ids, stream);
          int[] actual = RowIds.download(backend, ids, rows, stream);
          int position = first;
          for (int i = 0; i < rows; i++, position++) {
            int r = position % partitions;
            assertEquals(r < 0 ? r + partitions : r, actual[i], first + " + " + i + " into " + partitions);
          }
        }
      }
    }
  }

  @Test
  void roundRobinBatchDealsItsRowsInTurn() {
    int rows = 1001;
    List<FieldVector> input = PartitionTesting.randomColumns(rows, rnd, pageable);
    int[] ids = new int[rows];
    for (int i = 0; i < rows; i++) ids[i] = (i + 2) % 7;
    PartitionTesting.Grouping expected = PartitionTesting.stableGrouping(ids, 7);
    try (DeviceBatch batch = ArrowUpload.upload(backend, input, stream);
        PartitionedBatch grouped = PartitionedBatch.roundRobin(backend, batch, 2, 7, stream)) {
      assertGroupedAs(grouped, input, expected);
    } finally {
      Closeables.closeAll(input);
    }
  }

  @Test
  void rejectsBadArguments() {
    try (DeviceBuffer ids = backend.allocate(40, stream); DeviceBuffer order = backend.allocate(40, stream)) {
      PartitionPrimitives p = backend.partitions();
      assertThrows(IllegalArgumentException.class, () -> p.groupByPartition(ids, 10, 0, order, stream));
      assertThrows(IllegalArgumentException.class, () -> p.hashPartitionIds(List.of(), 10, 4, ids, stream));
      assertThrows(RuntimeException.class, () -> p.groupByPartition(ids, 11, 4, order, stream));
      assertThrows(IllegalArgumentException.class, () -> p.roundRobinPartitionIds(10, 0, 0, ids, stream));
    }
  }

  /** The grouped batch holds the input's rows in the expected order, cut at the expected starts. */
  private void assertGroupedAs(PartitionedBatch grouped, List<FieldVector> input, PartitionTesting.Grouping expected) {
    assertArrayEquals(expected.starts(), grouped.starts());
    try (ArrowDownload download = ArrowDownload.begin(backend, grouped.batch(), PartitionTesting.names(input),
        pageable, stream)) {
      List<FieldVector> actual = download.complete();
      try {
        for (int c = 0; c < input.size(); c++) {
          try (FieldVector want = RowIds.reorder(input.get(c), expected.order())) {
            VectorAssertions.assertVectorEquals(want, actual.get(c), "column " + c);
          }
        }
      } finally {
        Closeables.closeAll(actual);
      }
    }
  }
}
