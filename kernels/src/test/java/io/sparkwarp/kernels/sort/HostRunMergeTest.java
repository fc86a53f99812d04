package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * RunMerge on the host backend: random batches of every key type cut into runs, each sorted by DeviceSort and read
 * in pieces of random sizes, merge into exactly the stable sort of the whole batch (Spark's order, earlier runs first
 * among equal keys); keys all equal or all null still progress; the device memory of every round is freed.
 */
class HostRunMergeTest extends BackendTestBase {
  private final Random rnd = new Random();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void mergedRunsAreTheStableSortOfTheirConcatenation() {
    List<DeviceType> types = SortTesting.types();
    for (int rows : new int[] {1, 40, 1500}) {
      for (int trial = 0; trial < 8; trial++) {
        List<FieldVector> columns = new ArrayList<>();
        try {
          for (int c = 0; c < 3; c++) {
            columns.add(SortTesting.randomKeyColumn(types.get(rnd.nextInt(types.size())), rows, rnd, pageable));
          }
          List<SortKey> keys = SortTesting.randomKeys(columns.size(), 3, rnd);
          assertMergeSorts(columns, keys, 1 + rnd.nextInt(12), 1 + rnd.nextInt(60),
              rows + " rows by " + SortTesting.describe(columns, keys));
        } finally {
          Closeables.closeAll(columns);
        }
      }
    }
  }

  /** One key value (or only nulls) in every run: a window cannot be split by key, and each round still empties one. */
  @Test
  void equalKeysInEveryRunStillProgress() {
    for (double nulls : new double[] {0, 1}) {
      for (DeviceType type : List.of(DeviceType.STRING, DeviceType.DOUBLE, DeviceType.decimal(30, 4))) {
        List<FieldVector> columns = new ArrayList<>();
        try {
          columns.add(SortTesting.keyColumn(type, 700, 1, nulls, rnd, pageable));
          columns.add(SortTesting.keyColumn(DeviceType.INT, 700, 700, 0.1, rnd, pageable));
          List<SortKey> keys = List.of(new SortKey(0, rnd.nextBoolean(), rnd.nextBoolean()));
          assertMergeSorts(columns, keys, 7, 9, type + " keys, nulls " + nulls);
        } finally {
          Closeables.closeAll(columns);
        }
      }
    }
  }

  @Test
  void aRoundEmitsUpToTheFirstBoundOfItsOrder() {
    // windows [0, 3) and [3, 5): the second window's last row (4) is the first bound in the order
    assertArrayEquals(new int[] {2, 2}, RunMerge.emittedRows(new int[] {0, 3, 1, 4, 2},
        new int[] {0, 3, 5}, new boolean[] {false, false, true, false, true}));
    // no run goes on: every row
    assertArrayEquals(new int[] {3, 2}, RunMerge.emittedRows(new int[] {3, 0, 4, 1, 2},
        new int[] {0, 3, 5}, new boolean[5]));
  }

  /** Merges the batch of {@code columns} cut into runs (SortTesting.mergedInRuns), compares with its stable order. */
  private void assertMergeSorts(List<FieldVector> columns, List<SortKey> keys, int runCount, int maxPiece,
      String what) {
    long before = backend.deviceMemory().bytesInUse();
    try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
      SortTesting.assertRows(columns, SortTesting.expectedOrder(columns, keys, batch.rowCount()), backend,
          SortTesting.mergedInRuns(backend, batch, keys, runCount, maxPiece, rnd, stream), pageable, stream, what);
    }
    assertEquals(before, backend.deviceMemory().bytesInUse(), what + ": device memory left held");
  }
}
