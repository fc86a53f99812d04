package io.sparkwarp.plugin.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.vectorized.OffHeapColumnVector;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * Rows and CPU column batches gathered into Arrow vectors read back, through Spark's own ArrowColumnVector, as the
 * values that went in: every type, nulls, empty and multi-byte strings, across several appended batches.
 */
class HostBatchBuilderTest {
  private static final DataType[] TYPES = {DataTypes.BooleanType, DataTypes.ByteType, DataTypes.ShortType,
      DataTypes.IntegerType, DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType, DataTypes.DateType,
      DataTypes.TimestampType, DataTypes.createDecimalType(12, 2), DataTypes.StringType, DataTypes.BinaryType};
  private static final String[] STRINGS = {"", "a", "ü日本😀", "special requests", "x".repeat(300)};

  private final Random rnd = new Random();

  private static StructType schema() {
    StructType s = new StructType();
    for (int i = 0; i < TYPES.length; i++) s = s.add("c" + i, TYPES[i]);
    return s;
  }

  /** A random non-null value of {@code type}, as Spark holds it internally. */
  private Object value(DataType type) {
    if (type == DataTypes.BooleanType) return rnd.nextBoolean();
    if (type == DataTypes.ByteType) return (byte) rnd.nextInt();
    if (type == DataTypes.ShortType) return (short) rnd.nextInt();
    if (type == DataTypes.IntegerType || type == DataTypes.DateType) return rnd.nextInt();
    if (type == DataTypes.LongType || type == DataTypes.TimestampType) return rnd.nextLong();
    if (type == DataTypes.FloatType) return rnd.nextBoolean() ? Float.NaN : rnd.nextFloat();
    if (type == DataTypes.DoubleType) return rnd.nextBoolean() ? -0.0 : rnd.nextGaussian();
    if (type == DataTypes.StringType) return UTF8String.fromString(STRINGS[rnd.nextInt(STRINGS.length)]);
    if (type == DataTypes.BinaryType) return STRINGS[rnd.nextInt(STRINGS.length)].getBytes();
    return Decimal.apply(BigDecimal.valueOf(rnd.nextLong() % 10_000_000_000L, 2), 12, 2);
  }

  private List<Object[]> randomRows(int n) {
    return randomRows(n, 0.2);
  }

  private List<Object[]> randomRows(int n, double nullFraction) {
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      Object[] row = new Object[TYPES.length];
      for (int c = 0; c < TYPES.length; c++) row[c] = rnd.nextDouble() < nullFraction ? null : value(TYPES[c]);
      rows.add(row);
    }
    return rows;
  }

  private static ColumnarBatch columnBatch(List<Object[]> rows) {
    ColumnVector[] columns = new ColumnVector[TYPES.length];
    for (int c = 0; c < TYPES.length; c++) {
      OnHeapColumnVector v = new OnHeapColumnVector(rows.size(), TYPES[c]);
      for (int r = 0; r < rows.size(); r++) {
        Object x = rows.get(r)[c];
        if (x == null) v.putNull(r);
        else if (x instanceof Boolean b) v.putBoolean(r, b);
        else if (x instanceof Byte b) v.putByte(r, b);
        else if (x instanceof Short s) v.putShort(r, s);
        else if (x instanceof Integer i) v.putInt(r, i);
        else if (x instanceof Long l) v.putLong(r, l);
        else if (x instanceof Float f) v.putFloat(r, f);
        else if (x instanceof Double d) v.putDouble(r, d);
        else if (x instanceof UTF8String s) v.putByteArray(r, s.getBytes());
        else if (x instanceof byte[] b) v.putByteArray(r, b);
        else v.putDecimal(r, (Decimal) x, 12);
      }
      columns[c] = v;
    }
    return new ColumnarBatch(columns, rows.size());
  }

  private static void assertRoot(List<Object[]> expected, VectorSchemaRoot root) {
    assertEquals(expected.size(), root.getRowCount());
    for (int c = 0; c < TYPES.length; c++) {
      ArrowColumnVector v = new ArrowColumnVector(root.getVector(c));
      for (int r = 0; r < expected.size(); r++) {
        Object x = expected.get(r)[c];
        String where = "column " + TYPES[c] + " row " + r;
        if (x == null) {
          assertTrue(v.isNullAt(r), where);
          continue;
        }
        Object actual;
        if (x instanceof Boolean) actual = v.getBoolean(r);
        else if (x instanceof Byte) actual = v.getByte(r);
        else if (x instanceof Short) actual = v.getShort(r);
        else if (x instanceof Integer) actual = v.getInt(r);
        else if (x instanceof Long) actual = v.getLong(r);
        else if (x instanceof Float) actual = v.getFloat(r);
        else if (x instanceof Double) actual = v.getDouble(r);
        else if (x instanceof UTF8String) actual = v.getUTF8String(r);
        else if (x instanceof byte[] b) {
          assertEquals(new String(b), new String(v.getBinary(r)), where);
          continue;
        } else actual = v.getDecimal(r, 12, 2);
        assertEquals(x, actual, where);
      }
    }
  }

  @Test
  void columnBatchesAreGatheredWithoutRows() {
    try (RootAllocator allocator = new RootAllocator();
        HostBatchBuilder builder = new HostBatchBuilder(schema(), "UTC", allocator)) {
      assertNull(builder.take(), "nothing gathered yet");
      List<Object[]> all = new ArrayList<>();
      // batches that start mid-byte of the validity bitmap, with and without nulls
      for (int n : new int[] {7, 0, 4096, 33, 21, 100}) {
        List<Object[]> rows = randomRows(n, n % 2 == 0 ? 0.2 : 0.0);
        all.addAll(rows);
        try (ColumnarBatch batch = columnBatch(rows)) {
          builder.appendColumns(batch);
        }
      }
      assertTrue(builder.bytes() > 0);
      try (VectorSchemaRoot root = builder.take()) {
        assertRoot(all, root);
      }
    }
  }

  @Test
  void rowsStopAtTheTargetRowCount() {
    try (RootAllocator allocator = new RootAllocator();
        HostBatchBuilder builder = new HostBatchBuilder(schema(), "UTC", allocator)) {
      List<Object[]> rows = randomRows(250);
      List<InternalRow> internal = new ArrayList<>();
      for (Object[] r : rows) internal.add(new GenericInternalRow(r));
      var input = internal.iterator();
      builder.appendRows(input, 100, Long.MAX_VALUE);
      try (VectorSchemaRoot first = builder.take()) {
        assertRoot(rows.subList(0, 100), first);
      }
      builder.appendRows(input, 1000, Long.MAX_VALUE);
      try (VectorSchemaRoot rest = builder.take()) {
        assertRoot(rows.subList(100, 250), rest);
      }
    }
  }

  /**
   * Arrow-backed input (a batch downloaded from the GPU, read by a CPU operator that passes columns on) and
   * off-heap writable vectors, both with nulls in every type: ArrowColumnVector's bulk getters throw on a null slot.
   */
  @Test
  void arrowAndOffHeapBatchesWithNullsAreGathered() {
    try (RootAllocator allocator = new RootAllocator();
        HostBatchBuilder source = new HostBatchBuilder(schema(), "UTC", allocator);
        HostBatchBuilder builder = new HostBatchBuilder(schema(), "UTC", allocator)) {
      List<Object[]> arrowRows = randomRows(301, 0.3);
      List<InternalRow> internal = new ArrayList<>();
      for (Object[] r : arrowRows) internal.add(new GenericInternalRow(r));
      source.appendRows(internal.iterator(), Integer.MAX_VALUE, Long.MAX_VALUE);
      List<Object[]> offHeapRows = randomRows(77, 0.5);
      try (VectorSchemaRoot arrow = source.take()) {
        ColumnVector[] columns = arrow.getFieldVectors().stream().map(ArrowColumnVector::new)
            .toArray(ColumnVector[]::new);
        builder.appendColumns(new ColumnarBatch(columns, arrow.getRowCount()));
      }
      try (ColumnarBatch offHeap = offHeap(columnBatch(offHeapRows))) {
        builder.appendColumns(offHeap);
      }
      List<Object[]> all = new ArrayList<>(arrowRows);
      all.addAll(offHeapRows);
      try (VectorSchemaRoot root = builder.take()) {
        assertRoot(all, root);
      }
    }
  }

  /**
   * Arrow batches (the columnar shuffle's) appended after value-by-value input that may end in nulls, and after each
   * other: strings and binaries go in as one copy of their bytes with shifted offsets, which must line up.
   */
  @Test
  void arrowStringsAppendAfterOtherInput() {
    try (RootAllocator allocator = new RootAllocator();
        HostBatchBuilder builder = new HostBatchBuilder(schema(), "UTC", allocator)) {
      List<Object[]> all = new ArrayList<>();
      List<Object[]> offHeapRows = randomRows(61, 0.5);
      offHeapRows.add(new Object[TYPES.length]);  // a trailing row of nulls: its offsets are not filled yet
      try (ColumnarBatch offHeap = offHeap(columnBatch(offHeapRows))) {
        builder.appendColumns(offHeap);
      }
      all.addAll(offHeapRows);
      for (int batch = 0; batch < 2; batch++) {
        List<Object[]> arrowRows = randomRows(97 + batch, 0.3);
        try (HostBatchBuilder source = new HostBatchBuilder(schema(), "UTC", allocator)) {
          List<InternalRow> internal = new ArrayList<>();
          for (Object[] r : arrowRows) internal.add(new GenericInternalRow(r));
          source.appendRows(internal.iterator(), Integer.MAX_VALUE, Long.MAX_VALUE);
          try (VectorSchemaRoot arrow = source.take()) {
            ColumnVector[] columns = arrow.getFieldVectors().stream().map(ArrowColumnVector::new)
                .toArray(ColumnVector[]::new);
            builder.appendColumns(new ColumnarBatch(columns, arrow.getRowCount()));
          }
        }
        all.addAll(arrowRows);
      }
      try (VectorSchemaRoot root = builder.take()) {
        assertRoot(all, root);
      }
    }
  }

  /** The same batch in Spark's off-heap vectors. */
  private static ColumnarBatch offHeap(ColumnarBatch onHeap) {
    ColumnVector[] columns = new ColumnVector[TYPES.length];
    for (int c = 0; c < TYPES.length; c++) {
      OffHeapColumnVector v = new OffHeapColumnVector(onHeap.numRows(), TYPES[c]);
      ColumnVector in = onHeap.column(c);
      for (int r = 0; r < onHeap.numRows(); r++) {
        if (in.isNullAt(r)) v.putNull(r);
        else if (TYPES[c] == DataTypes.BooleanType) v.putBoolean(r, in.getBoolean(r));
        else if (TYPES[c] == DataTypes.ByteType) v.putByte(r, in.getByte(r));
        else if (TYPES[c] == DataTypes.ShortType) v.putShort(r, in.getShort(r));
        else if (TYPES[c] == DataTypes.IntegerType || TYPES[c] == DataTypes.DateType) v.putInt(r, in.getInt(r));
        else if (TYPES[c] == DataTypes.LongType || TYPES[c] == DataTypes.TimestampType) v.putLong(r, in.getLong(r));
        else if (TYPES[c] == DataTypes.FloatType) v.putFloat(r, in.getFloat(r));
        else if (TYPES[c] == DataTypes.DoubleType) v.putDouble(r, in.getDouble(r));
        else if (TYPES[c] == DataTypes.StringType) v.putByteArray(r, in.getUTF8String(r).getBytes());
        else if (TYPES[c] == DataTypes.BinaryType) v.putByteArray(r, in.getBinary(r));
        else v.putDecimal(r, in.getDecimal(r, 12, 2), 12);
      }
      columns[c] = v;
    }
    onHeap.close();
    return new ColumnarBatch(columns, onHeap.numRows());
  }

  /** A batch of rows and no columns (count(*) below a GPU operator) keeps its row count. */
  @Test
  void rowsWithoutColumnsKeepTheirCount() {
    try (RootAllocator allocator = new RootAllocator();
        HostBatchBuilder builder = new HostBatchBuilder(new StructType(), "UTC", allocator)) {
      List<InternalRow> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) rows.add(new GenericInternalRow(new Object[0]));
      builder.appendRows(rows.iterator(), 100, Long.MAX_VALUE);
      try (VectorSchemaRoot root = builder.take()) {
        assertEquals(10, root.getRowCount());
        assertEquals(0, root.getFieldVectors().size());
      }
      builder.appendColumns(new ColumnarBatch(new ColumnVector[0], 1234));
      try (VectorSchemaRoot root = builder.take()) {
        assertEquals(1234, root.getRowCount());
      }
    }
  }
}
