package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.BackendTestBase;
import io.sparkwarp.kernels.testing.RowIds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * TopSelect on the host backend against Spark's ordering written as a Comparator (SortTesting): batches of every key
 * type with ties (a few distinct values: many rows share the cutoff) and nulls, each column as the first key in both
 * directions and null placements, with and without more keys, at limits far below the rows (the select runs) and past
 * them; the prefixes never contradicting the order of their key; the cutoff keeping at least the limit and its
 * candidates being exactly the rows at or below it.
 */
class HostTopSelectTest extends BackendTestBase {
  private final Random rnd = new Random();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void topIsSparksStableTopN() {
    int rows = 4000;
    List<FieldVector> columns = new ArrayList<>();
    try {
      for (DeviceType type : SortTesting.types()) columns.add(SortTesting.randomKeyColumn(type, rows, rnd, pageable));
      try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
        for (int c = 0; c < columns.size(); c++) {
          for (int trial = 0; trial < 2; trial++) {
            List<SortKey> keys = new ArrayList<>(List.of(new SortKey(c, rnd.nextBoolean(), rnd.nextBoolean())));
            if (trial == 1) keys.addAll(SortTesting.randomKeys(columns.size(), 2, rnd));
            int[] expected = SortTesting.expectedOrder(columns, keys, rows);
            for (int limit : new int[] {1, 10, 999, rows + 7}) {
              String what = "top " + limit + " by " + SortTesting.describe(columns, keys);
              SortTesting.assertRows(columns, Arrays.copyOf(expected, Math.min(limit, rows)), backend,
                  TopSelect.top(backend, batch, keys, limit, stream), pageable, stream, what);
            }
          }
        }
      }
    } finally {
      Closeables.closeAll(columns);
    }
  }

  @Test
  void prefixesNeverContradictTheOrder() {
    int rows = 2000;
    for (DeviceType type : SortTesting.types()) {
      try (FieldVector column = SortTesting.randomKeyColumn(type, rows, rnd, pageable);
          DeviceBatch batch = ArrowUpload.upload(backend, List.of(column), stream);
          DeviceBuffer prefixes = backend.allocate(8L * rows, stream)) {
        for (SortKey key : List.of(new SortKey(0, true, true), new SortKey(0, true, false),
            new SortKey(0, false, true), new SortKey(0, false, false))) {
          backend.topSelect().prefixes(batch.column(0), key.ascending(), key.nullsFirst(), rows, prefixes, stream);
          long[] p = RowIds.downloadWords(backend, prefixes, rows, stream);
          Comparator<Integer> order = SortTesting.comparator(List.of(column), List.of(key));
          int[] sorted = SortTesting.expectedOrder(List.of(column), List.of(key), rows);
          String what = SortTesting.describe(List.of(column), List.of(key));
          for (int j = 1; j < rows; j++) {
            int a = sorted[j - 1];
            int b = sorted[j];
            int c = Long.compareUnsigned(p[a], p[b]);
            assertTrue(order.compare(a, b) == 0 ? c == 0 : c <= 0, what + ": rows " + a + " and " + b);
          }
        }
      }
    }
  }

  @Test
  void cutoffKeepsTheLimitAndItsCandidatesAreTheRowsAtOrBelowIt() {
    int rows = 100_000;
    for (DeviceType type : List.of(DeviceType.LONG, DeviceType.STRING, DeviceType.DOUBLE)) {
      try (FieldVector column = SortTesting.keyColumn(type, rows, rows, 0.01, rnd, pageable);
          DeviceBatch batch = ArrowUpload.upload(backend, List.of(column), stream);
          DeviceBuffer prefixes = backend.allocate(8L * rows, stream)) {
        TopSelectPrimitives select = backend.topSelect();
        select.prefixes(batch.column(0), true, false, rows, prefixes, stream);
        long[] p = RowIds.downloadWords(backend, prefixes, rows, stream);
        for (int limit : new int[] {1, 10, 1000}) {
          TopSelect.Cutoff cutoff = TopSelect.cutoff(select, prefixes, rows, limit, stream);
          int[] expected = IntStream.range(0, rows).filter(i -> Long.compareUnsigned(p[i], cutoff.prefix()) <= 0)
              .toArray();
          String what = type + ", limit " + limit;
          assertEquals(expected.length, cutoff.candidates(), what);
          assertTrue(cutoff.candidates() >= limit, what);
          try (DeviceBuffer ids = backend.allocate(4L * cutoff.candidates(), stream)) {
            select.candidates(prefixes, rows, cutoff.prefix(), ids, stream);
            assertArrayEquals(expected, RowIds.download(backend, ids, cutoff.candidates(), stream), what);
          }
        }
      }
    }
  }

  @Test
  void rejectsBadArguments() {
    try (FieldVector column = SortTesting.keyColumn(DeviceType.INT, 10, 10, 0, rnd, pageable);
        DeviceBatch batch = ArrowUpload.upload(backend, List.of(column), stream);
        DeviceBuffer prefixes = backend.allocate(80, stream)) {
      TopSelectPrimitives select = backend.topSelect();
      assertThrows(IllegalArgumentException.class, () -> select.prefixes(batch.column(0), true, true, 11, prefixes,
          stream));
      assertThrows(IllegalArgumentException.class, () -> select.histogram(prefixes, 10, 4, 0, stream));
      assertThrows(IllegalArgumentException.class, () -> select.histogram(prefixes, 10, 64, 0, stream));
      assertThrows(RuntimeException.class, () -> select.histogram(prefixes, 11, 0, 0, stream));
    }
  }
}
