package io.sparkwarp.kernels.batch;

import static io.sparkwarp.kernels.testing.VectorAssertions.assertRowsEqual;
import static io.sparkwarp.kernels.testing.VectorAssertions.assertVectorEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.testing.BackendTestBase;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.Test;

/**
 * Arrow vectors to device batches and back, slicing and concatenation, for every device type and the sizes around
 * warp and word boundaries. Subclasses pick the backend.
 */
public abstract class BatchTransferTests extends BackendTestBase {
  static final int[] SIZES = {0, 1, 7, 31, 32, 33, 1000, 70_001};

  private final Random rnd = new Random();

  private List<FieldVector> randomColumns(int rows, BufferAllocator allocator, double nullFraction) {
    List<FieldVector> vectors = new ArrayList<>();
    for (DeviceType type : RandomVectors.allTypes()) {
      vectors.add(RandomVectors.random(type, rows, nullFraction, 40, rnd, allocator));
    }
    // 128-bit decimals travel as they are (aggregation buffers and results)
    vectors.add(RandomVectors.random(DeviceType.decimal(38, 10), rows, nullFraction, 40, rnd, allocator));
    return vectors;
  }

  private static List<String> names(int n) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) names.add("c" + i);
    return names;
  }

  /** Uploads, downloads into {@code into}, and returns the downloaded vectors. */
  private List<FieldVector> roundTrip(List<FieldVector> vectors, BufferAllocator into) {
    try (DeviceBatch batch = ArrowUpload.upload(backend, vectors, stream);
        ArrowDownload download = ArrowDownload.begin(backend, batch, names(vectors.size()), into, stream)) {
      return download.complete();
    }
  }

  private void assertRoundTrip(List<FieldVector> vectors, BufferAllocator into, String what) {
    List<FieldVector> back = roundTrip(vectors, into);
    try {
      for (int c = 0; c < vectors.size(); c++) {
        assertVectorEquals(vectors.get(c), back.get(c), what + " column " + vectors.get(c).getField().getType());
      }
    } finally {
      Closeables.closeAll(back);
    }
  }

  @Test
  void everyTypeRoundTripsThroughTransferMemory() {
    for (int rows : SIZES) {
      List<FieldVector> vectors = randomColumns(rows, transfer, 0.2);
      try {
        assertRoundTrip(vectors, transfer, rows + " rows");
      } finally {
        Closeables.closeAll(vectors);
      }
    }
  }

  @Test
  void pageableMemoryRoundTrips() {
    for (int rows : new int[] {33, 3_000_000}) {
      List<FieldVector> vectors = List.of(
          RandomVectors.random(DeviceType.LONG, rows, 0.1, 0, rnd, pageable),
          RandomVectors.random(DeviceType.STRING, rows, 0.1, 12, rnd, pageable));
      try {
        assertRoundTrip(vectors, pageable, rows + " pageable rows");
      } finally {
        Closeables.closeAll(vectors);
      }
    }
  }

  @Test
  void allNullAndNoNullColumnsRoundTrip() {
    for (double nullFraction : new double[] {0.0, 1.0}) {
      List<FieldVector> vectors = randomColumns(100, transfer, nullFraction);
      try {
        assertRoundTrip(vectors, transfer, "null fraction " + nullFraction);
      } finally {
        Closeables.closeAll(vectors);
      }
    }
  }

  @Test
  void nullColumnsDownloadAsNulls() {
    List<DeviceType> types = new ArrayList<>(List.of(RandomVectors.allTypes()));
    types.add(DeviceType.decimal(38, 10));
    for (int rows : SIZES) {
      List<DeviceColumn> columns = new ArrayList<>();
      for (DeviceType type : types) columns.add(DeviceColumn.nulls(backend, type, rows, stream));
      try (DeviceBatch batch = new DeviceBatch(columns, rows);
          ArrowDownload download = ArrowDownload.begin(backend, batch, names(types.size()), transfer, stream)) {
        List<FieldVector> vectors = download.complete();
        try {
          for (FieldVector v : vectors) {
            assertEquals(rows, v.getValueCount(), v.getField() + " at " + rows + " rows");
            assertEquals(rows, v.getNullCount(), v.getField() + " at " + rows + " rows");
          }
        } finally {
          vectors.forEach(FieldVector::close);
        }
      }
    }
  }

  @Test
  void veryLongStringsRoundTrip() {
    try (VarCharVector v = new VarCharVector("s", transfer)) {
      v.allocateNew();
      for (int i = 0; i < 5; i++) v.setSafe(i, RandomVectors.randomString(rnd, 3 << 20, false));
      v.setNull(5);
      v.setSafe(6, new byte[0]);
      v.setValueCount(7);
      assertRoundTrip(List.of(v), transfer, "megabyte strings");
    }
  }

  @Test
  void slicedArrowStringVectorUploadsWithRebasedOffsets() {
    // offsets that start at 5, as a vector sharing another's value buffer would have
    byte[] data = "xxxxxhelloü日本".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int[] offsets = {5, 10, 10, 12, data.length};
    try (ArrowBuf validity = transfer.buffer(1); ArrowBuf off = transfer.buffer(4L * offsets.length);
        ArrowBuf values = transfer.buffer(data.length);
        VarCharVector v = new VarCharVector("s", transfer);
        VarCharVector expected = new VarCharVector("s", transfer)) {
      validity.setByte(0, 0b1011);  // row 2 is null
      for (int i = 0; i < offsets.length; i++) off.setInt(4L * i, offsets[i]);
      values.setBytes(0, data);
      v.loadFieldBuffers(new ArrowFieldNode(4, 1), List.of(validity, off, values));
      expected.allocateNew();
      expected.setSafe(0, "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      expected.setSafe(1, new byte[0]);
      expected.setNull(2);
      expected.setSafe(3, "日本".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      expected.setValueCount(4);
      List<FieldVector> back = roundTrip(List.of(v), transfer);
      try {
        assertVectorEquals(expected, back.get(0), "rebased strings");
      } finally {
        Closeables.closeAll(back);
      }
    }
  }

  @Test
  void slicesEqualTheRowsTheyCover() {
    int rows = 1003;
    List<FieldVector> vectors = randomColumns(rows, transfer, 0.25);
    int[][] ranges = {{0, 0}, {0, rows}, {1, 31}, {3, 64}, {31, 33}, {500, 503}, {rows, 0}, {rows - 1, 1}};
    try (DeviceBatch batch = ArrowUpload.upload(backend, vectors, stream)) {
      for (int[] r : ranges) {
        List<FieldVector> back;
        try (DeviceBatch slice = BatchSlicer.slice(backend, batch, r[0], r[1], stream);
            ArrowDownload d = ArrowDownload.begin(backend, slice, names(vectors.size()), transfer, stream)) {
          assertEquals(r[1], slice.rowCount());
          back = d.complete();
        }
        try {
          for (int c = 0; c < vectors.size(); c++) {
            assertEquals(r[1], back.get(c).getValueCount());
            assertRowsEqual(vectors.get(c), r[0], back.get(c), "slice " + r[0] + "+" + r[1] + " column " + c);
          }
        } finally {
          Closeables.closeAll(back);
        }
      }
      assertThrows(IndexOutOfBoundsException.class, () -> BatchSlicer.slice(backend, batch, rows, 1, stream));
    } finally {
      Closeables.closeAll(vectors);
    }
  }

  @Test
  void rangesConcatenateToTheRowsTheyCover() {
    // as the Parquet scan lines its columns up after page pruning: unaligned ranges, empty ones, the last row
    int rows = 1003;
    List<FieldVector> vectors = randomColumns(rows, transfer, 0.25);
    int[] starts = {1, 40, 40, 97, 600, rows - 1};
    int[] lengths = {31, 0, 50, 200, 3, 1};
    try (DeviceBatch batch = ArrowUpload.upload(backend, vectors, stream);
        DeviceBatch kept = BatchConcatenator.concatRanges(backend,
            BatchSlicer.ranges(backend, batch, starts, lengths, stream), stream);
        ArrowDownload d = ArrowDownload.begin(backend, kept, names(vectors.size()), transfer, stream)) {
      List<FieldVector> back = d.complete();
      try {
        int at = 0;
        for (int r = 0; r < starts.length; r++) {
          for (int c = 0; c < vectors.size(); c++) {
            TransferPair split = back.get(c).getTransferPair(transfer);
            split.splitAndTransfer(at, lengths[r]);
            try (FieldVector part = (FieldVector) split.getTo()) {
              assertRowsEqual(vectors.get(c), starts[r], part, "range " + r + " column " + c);
            }
          }
          at += lengths[r];
        }
        assertEquals(at, kept.rowCount());
      } finally {
        Closeables.closeAll(back);
      }
    } finally {
      Closeables.closeAll(vectors);
    }
  }

  @Test
  void concatenationKeepsEveryRowInOrder() {
    int[] sizes = {5, 0, 33, 1, 64, 200};
    int[][] wholeBatches = new int[sizes.length][];
    for (int b = 0; b < sizes.length; b++) wholeBatches[b] = new int[] {b, 0, sizes[b]};
    checkConcatenation(sizes, wholeBatches, false);
  }

  @Test
  void rangesConcatenateTheirRowsOnly() {
    // (batch, first row, rows): bit offsets off word and byte boundaries, empty ranges, a whole batch
    checkConcatenation(new int[] {70, 0, 129},
        new int[][] {{0, 3, 40}, {1, 0, 0}, {2, 0, 129}, {0, 69, 1}, {2, 64, 0}, {2, 33, 17}}, true);
  }

  /**
   * Concatenates the picked (batch, first row, rows) of random batches of {@code sizes} rows, as ranges or (each
   * pick a whole batch) as batches, and compares every column with the inputs' rows.
   */
  private void checkConcatenation(int[] sizes, int[][] picks, boolean asRanges) {
    List<List<FieldVector>> inputs = new ArrayList<>();
    List<DeviceBatch> batches = new ArrayList<>();
    try {
      for (int n : sizes) {
        inputs.add(randomColumns(n, transfer, 0.3));
        batches.add(ArrowUpload.upload(backend, inputs.get(inputs.size() - 1), stream));
      }
      int columns = inputs.get(0).size();
      List<BatchRange> ranges = new ArrayList<>();
      for (int[] p : picks) {
        long[] from = new long[columns];
        long[] to = new long[columns];
        for (int c = 0; c < columns; c++) {
          if (inputs.get(p[0]).get(c) instanceof BaseVariableWidthVector v) {
            from[c] = v.getStartOffset(p[1]);
            to[c] = v.getStartOffset(p[1] + p[2]);
          }
        }
        ranges.add(new BatchRange(batches.get(p[0]), p[1], p[2], from, to));
      }
      List<FieldVector> back;
      try (DeviceBatch all = asRanges ? BatchConcatenator.concatRanges(backend, ranges, stream)
              : BatchConcatenator.concat(backend, batches, stream);
          ArrowDownload d = ArrowDownload.begin(backend, all, names(all.columnCount()), transfer, stream)) {
        if (asRanges) {
          for (BatchRange r : ranges) {
            try (DeviceBatch one = BatchConcatenator.concatRanges(backend, List.of(r), stream)) {
              assertEquals(one.deviceBytes(), r.deviceBytes(), "device bytes of " + r.rows() + " rows");
            }
          }
        }
        back = d.complete();
      }
      try {
        for (int c = 0; c < columns; c++) {
          int at = 0;
          for (int[] p : picks) {
            try (FieldVector want = slice(inputs.get(p[0]).get(c), p[1], p[2]);
                FieldVector got = slice(back.get(c), at, p[2])) {
              assertRowsEqual(want, 0, got, "rows " + java.util.Arrays.toString(p) + " column " + c);
            }
            at += p[2];
          }
          assertEquals(at, back.get(c).getValueCount());
        }
      } finally {
        Closeables.closeAll(back);
      }
    } finally {
      Closeables.closeAll(batches);
      inputs.forEach(Closeables::closeAll);
    }
  }

  private FieldVector slice(FieldVector v, int start, int length) {
    var pair = v.getTransferPair(transfer);
    pair.splitAndTransfer(start, length);
    return (FieldVector) pair.getTo();
  }

  @Test
  void concatenationRejectsMismatchedTypes() {
    try (FieldVector a = RandomVectors.random(DeviceType.INT, 3, 0, 0, rnd, transfer);
        FieldVector b = RandomVectors.random(DeviceType.LONG, 3, 0, 0, rnd, transfer);
        DeviceBatch x = ArrowUpload.upload(backend, List.of(a), stream);
        DeviceBatch y = ArrowUpload.upload(backend, List.of(b), stream)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> BatchConcatenator.concat(backend, List.of(x, y), stream));
      assertTrue(e.getMessage().contains("int") && e.getMessage().contains("long"), e.getMessage());
    }
  }

  @Test
  void typesWithoutDeviceLayoutAreRejectedByName() {
    try (UInt4Vector unsigned = new UInt4Vector("u", transfer);
        FieldVector wideDecimal = new Field("d", FieldType.nullable(new ArrowType.Decimal(40, 2, 256)), null)
            .createVector(transfer)) {
      unsigned.allocateNew(1);
      unsigned.setValueCount(1);
      UnsupportedTypeException e = assertThrows(UnsupportedTypeException.class,
          () -> ArrowUpload.upload(backend, List.of(unsigned), stream));
      assertTrue(e.getMessage().contains("Int(32, false)"), e.getMessage());
      e = assertThrows(UnsupportedTypeException.class, () -> ArrowUpload.upload(backend, List.of(wideDecimal), stream));
      assertTrue(e.getMessage().contains("Decimal(40, 2, 256)"), e.getMessage());
    }
  }
}
