package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceReadback;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import io.sparkwarp.kernels.testing.RowIds;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * sort.cu and grouping.cu against the host reference on fresh random batches with ties: the order, the sorted batch
 * and top-N by key combinations over every type (strings, binaries and 128-bit decimals among them, NaN, -0.0,
 * nulls), at sizes around warp and tile boundaries up to two million rows; the pair passes of keys packed into one
 * word (every fixed-width type, narrow ranges, no nulls, some or only nulls, every direction and null placement,
 * several keys in one word), the pair pass primitive itself (every digit position and width, with and without
 * row ids in and words out) from no rows to many 4096-row tiles, and the digit histograms that place its digits.
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

  /** Rows around the block path's 4096-row chunk, and two million. */
  private static final int[] PACKED_SIZES = {0, 1, 4095, 4097, 2_000_003};

  @Test
  void packedKeysOrderMatches() {
    int packed = 0;
    for (int rows : PACKED_SIZES) {
      for (double nulls : new double[] {0, 0.1, 1}) {
        List<FieldVector> columns = new ArrayList<>();
        try {
          // ties: 20 distinct values, or as many as rows
          for (DeviceType type : SortTesting.fixedWidthTypes()) {
            columns.add(SortTesting.keyColumn(type, rows, rnd.nextBoolean() ? 20 : Math.max(1, rows), nulls, rnd,
                allocator));
          }
          columns.add(SortTesting.narrowColumn(DeviceType.INT, rows, nulls, rnd, allocator));
          columns.add(SortTesting.narrowColumn(DeviceType.LONG, rows, nulls, rnd, allocator));
          try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
              DeviceBatch onCuda = ArrowUpload.upload(cuda, columns, cs);
              DeviceBatch onHost = ArrowUpload.upload(host, columns, hs)) {
            List<List<SortKey>> keyLists = new ArrayList<>();
            for (int c = 0; c < columns.size(); c++) {
              for (boolean ascending : new boolean[] {true, false}) {
                for (boolean nullsFirst : new boolean[] {true, false}) {
                  keyLists.add(List.of(new SortKey(c, ascending, nullsFirst)));
                }
              }
            }
            // booleans, bytes, shorts (at most 28 bits); narrow ints and longs, booleans; and a random three
            keyLists.add(List.of(new SortKey(0, false, true), new SortKey(1, true, false),
                new SortKey(2, false, false)));
            keyLists.add(List.of(new SortKey(10, true, true), new SortKey(11, false, false), new SortKey(0, true,
                false)));
            keyLists.add(SortTesting.randomKeys(columns.size(), 3, rnd));
            for (List<SortKey> keys : keyLists) {
              String what = rows + " rows, " + nulls + " nulls, by " + SortTesting.describe(columns, keys);
              List<KeyStatistics> statistics = KeyStatistics.read(host, onHost, keys, hs);
              assertEquals(statistics, KeyStatistics.read(cuda, onCuda, keys, cs), what + ": statistics");
              if (PackedKeys.plan(onHost, keys, statistics) != null) packed++;
              assertArrayEquals(SortTesting.order(host, onHost, keys, hs), SortTesting.order(cuda, onCuda, keys, cs),
                  what + ": order");
            }
          }
        } finally {
          Closeables.closeAll(columns);
        }
      }
    }
    // every single key at 4095 rows and up with valid rows, and the two lists that fit (but for a rare narrow range
    // across a high power of 2)
    assertTrue(packed >= 3 * 2 * 50 - 6, packed + " key lists took the pair passes");
  }

  /**
   * sort.cu's pair passes (each placed by its own histogram of {@link SortPrimitives#digitCounts}) against the host's
   * loop: random words (a few distinct digits, or any) at every digit position and width, row ids given or the
   * identity, words written or not, and the first pass's words packed from key columns; no rows to many tiles;
   * nothing past the rows written.
   */
  @Test
  void pairPassesMatch() {
    int[][] digits = {{0, 8}, {3, 5}, {56, 8}, {63, 1}, {20, 2}};
    for (int rows : new int[] {0, 1, 31, 4095, 4096, 4097, 1_000_003}) {
      long[] words = new long[rows];
      long[] pool = rnd.longs(3).toArray();
      for (int i = 0; i < rows; i++) words[i] = rnd.nextBoolean() ? pool[rnd.nextInt(3)] : rnd.nextLong();
      int[] ids = IntStream.range(0, rows).map(i -> rnd.nextInt()).toArray();
      for (int[] digit : digits) {
        for (boolean withIds : new boolean[] {false, true}) {
          for (boolean withWords : new boolean[] {false, true}) {
            String what = rows + " rows by bits [" + digit[0] + ", +" + digit[1] + ")" + (withIds ? ", ids" : "")
                + (withWords ? ", words out" : "");
            Pairs expected = pairPass(host, null, words, withIds ? ids : null, digit, withWords);
            Pairs actual = pairPass(cuda, null, words, withIds ? ids : null, digit, withWords);
            assertArrayEquals(expected.ids, actual.ids, what + ": ids");
            assertArrayEquals(expected.words, actual.words, what + ": words");
          }
        }
      }
      if (rows == 0) continue;  // no key statistics to plan from
      // the first pass: words packed from a long and a boolean key with nulls (12 bits of the long, then its flag)
      List<FieldVector> columns = List.of(SortTesting.narrowColumn(DeviceType.LONG, rows, 0.1, rnd, allocator),
          SortTesting.keyColumn(DeviceType.BOOLEAN, rows, 2, 0.3, rnd, allocator));
      try (DeviceStream hs = host.newStream(); DeviceBatch onHost = ArrowUpload.upload(host, columns, hs)) {
        List<SortKey> keys = List.of(new SortKey(0, false, true), new SortKey(1, true, false));
        PackedKeys plan = PackedKeys.plan(onHost, keys, KeyStatistics.read(host, onHost, keys, hs));
        for (PackedKeys.Pass pass : plan == null ? List.<PackedKeys.Pass>of() : plan.passes()) {
          int[] digit = {pass.shift(), pass.bits()};
          String what = rows + " rows packed, bits [" + digit[0] + ", +" + digit[1] + ")";
          Pairs expected = pairPass(host, columns, null, null, digit, true);
          Pairs actual = pairPass(cuda, columns, null, null, digit, true);
          assertArrayEquals(expected.ids, actual.ids, what + ": ids");
          assertArrayEquals(expected.words, actual.words, what + ": words");
        }
      } finally {
        Closeables.closeAll(columns);
      }
    }
  }

  /** What a pair pass wrote: rows + 1 of each output (the last must stay unwritten), words null where not asked. */
  private record Pairs(int[] ids, long[] words) {}

  /**
   * One pair pass on {@code backend} over {@code words} (or, where null, the words of {@code columns} packed by
   * key 0 descending nulls first, then key 1 ascending nulls last) and {@code ids} (or the identity).
   */
  private Pairs pairPass(Backend backend, List<FieldVector> columns, long[] words, int[] ids, int[] digit,
      boolean withWords) {
    int rows = words != null ? words.length : columns.get(0).getValueCount();
    try (DeviceStream stream = backend.newStream();
        DeviceBatch batch = columns == null ? null : ArrowUpload.upload(backend, columns, stream);
        DeviceBuffer in = words == null ? null : RowIds.uploadWords(backend, words, stream);
        DeviceBuffer idsIn = ids == null ? null : RowIds.upload(backend, ids, stream);
        DeviceBuffer wordsOut = withWords ? backend.allocate(8L * (rows + 1), stream) : null;
        DeviceBuffer idsOut = backend.allocate(4L * (rows + 1), stream)) {
      PackedKeys keys = null;
      if (batch != null) {
        List<SortKey> sortKeys = List.of(new SortKey(0, false, true), new SortKey(1, true, false));
        keys = PackedKeys.plan(batch, sortKeys, KeyStatistics.read(backend, batch, sortKeys, stream));
      }
      if (wordsOut != null) backend.fill(wordsOut, 0, wordsOut.size(), UNWRITTEN, stream);
      backend.fill(idsOut, 0, idsOut.size(), UNWRITTEN, stream);
      try (DeviceBuffer counts = backend.allocate(4L * SortPrimitives.DIGIT_CELLS, stream)) {
        backend.sorts().digitCounts(keys, in, rows, List.of(new PackedKeys.Pass(digit[0], digit[1])), counts, null,
            stream);
        backend.sorts().pairPass(keys, in, idsIn, rows, digit[0], digit[1], counts, 0, wordsOut, idsOut, stream);
        long[] outWords = wordsOut == null ? null : DeviceReadback.longs(backend, wordsOut, rows + 1, stream);
        return new Pairs(RowIds.download(backend, idsOut, rows + 1, stream), outWords);
      }
    }
  }

  /**
   * sort.cu's histograms of every pass against the host's: fresh random words of a few distinct values or any, with
   * a constant digit (bits [24, 32) the same in every row), from no rows through one tile to many; and the histograms
   * of words packed from key columns by the passes their plan makes, with the packed words they write out.
   */
  @Test
  void digitCountsMatch() {
    List<PackedKeys.Pass> passes = List.of(new PackedKeys.Pass(0, 8), new PackedKeys.Pass(8, 3),
        new PackedKeys.Pass(24, 8), new PackedKeys.Pass(40, 8), new PackedKeys.Pass(56, 8), new PackedKeys.Pass(63, 1));
    for (int rows : new int[] {0, 1, 4096, 4097, 1_000_003}) {
      long[] pool = rnd.longs(3).toArray();
      long[] words = new long[rows];
      for (int i = 0; i < rows; i++) {
        long w = rnd.nextBoolean() ? pool[rnd.nextInt(3)] : rnd.nextLong();
        words[i] = w & ~(0xffL << 24) | 0x5aL << 24;
      }
      assertArrayEquals(digitCounts(host, null, words, passes), digitCounts(cuda, null, words, passes),
          rows + " rows of words");
      if (rows == 0) continue;  // no key statistics to plan from
      List<FieldVector> columns = List.of(SortTesting.narrowColumn(DeviceType.LONG, rows, 0.1, rnd, allocator),
          SortTesting.keyColumn(DeviceType.BOOLEAN, rows, 2, 0.3, rnd, allocator));
      try {
        assertArrayEquals(digitCounts(host, columns, null, null), digitCounts(cuda, columns, null, null),
            rows + " rows packed");
        assertArrayEquals(packedWords(host, columns), packedWords(cuda, columns), rows + " packed words");
      } finally {
        Closeables.closeAll(columns);
      }
    }
  }

  /**
   * {@link SortPrimitives#digitCounts} on {@code backend} over {@code words} by {@code passes}, or where words is null
   * over the words of {@code columns} packed as {@link #pairPass} packs them, by their plan's passes (none: no
   * counts).
   */
  private int[] digitCounts(Backend backend, List<FieldVector> columns, long[] words, List<PackedKeys.Pass> passes) {
    return (int[]) countWords(backend, columns, words, passes, false);
  }

  /** The words {@link SortPrimitives#digitCounts} packs from {@code columns} and writes out (none: no words). */
  private long[] packedWords(Backend backend, List<FieldVector> columns) {
    return (long[]) countWords(backend, columns, null, null, true);
  }

  private Object countWords(Backend backend, List<FieldVector> columns, long[] words, List<PackedKeys.Pass> passes,
      boolean packedOut) {
    int rows = words != null ? words.length : columns.get(0).getValueCount();
    try (DeviceStream stream = backend.newStream();
        DeviceBatch batch = columns == null ? null : ArrowUpload.upload(backend, columns, stream);
        DeviceBuffer in = words == null ? null : RowIds.uploadWords(backend, words, stream)) {
      PackedKeys keys = null;
      if (batch != null) {
        List<SortKey> sortKeys = List.of(new SortKey(0, false, true), new SortKey(1, true, false));
        keys = PackedKeys.plan(batch, sortKeys, KeyStatistics.read(backend, batch, sortKeys, stream));
        if (keys == null) return packedOut ? new long[0] : new int[0];
        passes = keys.passes();
      }
      int cells = SortPrimitives.DIGIT_CELLS * passes.size();
      try (DeviceBuffer counts = backend.allocate(4L * cells, stream);
          DeviceBuffer packed = packedOut ? backend.allocate(8L * rows, stream) : null) {
        backend.sorts().digitCounts(keys, in, rows, passes, counts, packed, stream);
        return packedOut ? DeviceReadback.longs(backend, packed, rows, stream)
            : RowIds.download(backend, counts, cells, stream);
      }
    }
  }

  private static final byte UNWRITTEN = (byte) 0xA5;

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
