package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.util.ArrayDeque;
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

  /** A sorted run held as device pieces, handed out front to back. */
  private static final class PiecesRun implements RunMerge.Run, AutoCloseable {
    private final ArrayDeque<DeviceBatch> pieces = new ArrayDeque<>();

    @Override
    public boolean hasMore() {
      return !pieces.isEmpty();
    }

    @Override
    public DeviceBatch next() {
      return pieces.poll();
    }

    @Override
    public void close() {
      Closeables.closeAll(new ArrayList<>(pieces));
    }
  }

  @Test
  void mergedRunsAreTheStableSortOfTheirConcatenation() {
    List<DeviceType> types = SortTesting.types();
    for (int rows : new int[] {1, 40, 1500}) {
      for (int trial = 0; trial < 12; trial++) {
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

  /**
   * Cuts the batch of {@code columns} into {@code runCount} runs of random lengths, sorts each and serves it in
   * pieces of 1 to {@code maxPiece} rows, merges them and compares with the stable order of the whole batch.
   */
  private void assertMergeSorts(List<FieldVector> columns, List<SortKey> keys, int runCount, int maxPiece,
      String what) {
    int rows = columns.get(0).getValueCount();
    long before = backend.deviceMemory().bytesInUse();
    List<PiecesRun> runs = new ArrayList<>();
    List<DeviceBatch> out = new ArrayList<>();
    try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
      int start = 0;
      for (int r = 0; r < runCount && start < rows; r++) {
        int length = r == runCount - 1 ? rows - start : 1 + rnd.nextInt(Math.max(1, 2 * rows / runCount));
        length = Math.min(length, rows - start);
        PiecesRun run = new PiecesRun();
        runs.add(run);
        try (DeviceBatch chunk = BatchSlicer.slice(backend, batch, start, length, stream);
            DeviceBatch sorted = DeviceSort.sort(backend, chunk, keys, stream)) {
          for (int at = 0; at < length; ) {
            int piece = Math.min(length - at, 1 + rnd.nextInt(maxPiece));
            run.pieces.add(BatchSlicer.slice(backend, sorted, at, piece, stream));
            at += piece;
          }
        }
        start += length;
      }
      try (RunMerge merge = new RunMerge(backend, runs, keys, stream)) {
        for (DeviceBatch b = merge.next(); b != null; b = merge.next()) {
          out.add(b);
          assertTrue(b.rowCount() > 0, what + ": an empty round");
        }
      }
      SortTesting.assertRows(columns, SortTesting.expectedOrder(columns, keys, rows), backend,
          BatchConcatenator.concat(backend, out, stream), pageable, stream, what);
    } finally {
      Closeables.closeAll(out);
      Closeables.closeAll(runs);
    }
    assertEquals(before, backend.deviceMemory().bytesInUse(), what + ": device memory left held");
  }
}
