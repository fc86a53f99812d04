package io.sparkwarp.plugin.shuffle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils$;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Slices of every vector kind Spark's ArrowUtils makes, cut by ColumnarSlices and appended back by SliceAppender,
 * read as the input's rows through Arrow's getters: whole batches, random partitions, slices appended at odd row
 * offsets, no columns, and truncated or garbled slices, which must throw and add nothing. No Arrow memory may leak.
 */
class ColumnarSlicesTest {
  private static final DataType[] TYPES = {DataTypes.BooleanType, DataTypes.ByteType, DataTypes.ShortType,
      DataTypes.IntegerType, DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType, DataTypes.DateType,
      DataTypes.TimestampType, DataTypes.TimestampNTZType, DataTypes.createDecimalType(12, 2),
      DataTypes.createDecimalType(38, 10), DataTypes.StringType, DataTypes.BinaryType};
  private static final String[] STRINGS = {"", "a", "ü日本😀", "special requests", "x".repeat(300),
      "长".repeat(5000)};
  private static final float[] FLOATS = {Float.NaN, Float.intBitsToFloat(0x7fc12345), -0.0f, 0.0f,
      Float.NEGATIVE_INFINITY, Float.MAX_VALUE, Float.MIN_VALUE};
  private static final double[] DOUBLES = {Double.NaN, Double.longBitsToDouble(0x7ff8000000abcdefL), -0.0, 0.0,
      Double.POSITIVE_INFINITY, -Double.MAX_VALUE, Double.MIN_VALUE};
  private static final BigInteger MAX_38 = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);

  private final RootAllocator allocator = new RootAllocator();
  private final Random rnd = new Random(20240611);

  @AfterEach
  void noLeak() {
    assertEquals(0, allocator.getAllocatedMemory(), "Arrow memory left allocated");
    allocator.close();
  }

  private static Schema schema() {
    StructType s = new StructType();
    for (int i = 0; i < TYPES.length; i++) s = s.add("c" + i, TYPES[i]);
    return ArrowUtils$.MODULE$.toArrowSchema(s, "UTC", true, false);
  }

  /** A batch of random values, each null with probability nullFraction, edge values often. */
  private VectorSchemaRoot batch(Schema schema, int rows, double nullFraction) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    for (FieldVector v : root.getFieldVectors()) {
      for (int r = 0; r < rows; r++) {
        if (rnd.nextDouble() < nullFraction) setNull(v, r);
        else setRandom(v, r);
      }
    }
    root.setRowCount(rows);
    return root;
  }

  private static void setNull(FieldVector v, int r) {
    if (v instanceof BaseFixedWidthVector f) f.setNull(r);
    else ((BaseVariableWidthVector) v).setNull(r);
  }

  private void setRandom(FieldVector v, int r) {
    boolean edge = rnd.nextInt(4) == 0;
    if (v instanceof BitVector b) b.setSafe(r, rnd.nextInt(2));
    else if (v instanceof TinyIntVector t) t.setSafe(r, edge ? Byte.MIN_VALUE : (byte) rnd.nextInt());
    else if (v instanceof SmallIntVector s) s.setSafe(r, edge ? Short.MAX_VALUE : (short) rnd.nextInt());
    else if (v instanceof IntVector i) i.setSafe(r, edge ? Integer.MIN_VALUE : rnd.nextInt());
    else if (v instanceof BigIntVector l) l.setSafe(r, edge ? Long.MIN_VALUE : rnd.nextLong());
    else if (v instanceof Float4Vector f) f.setSafe(r, edge ? FLOATS[rnd.nextInt(FLOATS.length)] : rnd.nextFloat());
    else if (v instanceof Float8Vector d) {
      d.setSafe(r, edge ? DOUBLES[rnd.nextInt(DOUBLES.length)] : rnd.nextGaussian());
    } else if (v instanceof DateDayVector d) d.setSafe(r, rnd.nextInt(100_000) - 50_000);
    else if (v instanceof TimeStampMicroTZVector t) t.setSafe(r, rnd.nextLong());
    else if (v instanceof TimeStampMicroVector t) t.setSafe(r, rnd.nextLong());
    else if (v instanceof DecimalVector d) d.setSafe(r, decimal(d, edge));
    else if (v instanceof VarCharVector s) {
      s.setSafe(r, STRINGS[rnd.nextInt(STRINGS.length)].getBytes(StandardCharsets.UTF_8));
    } else if (v instanceof VarBinaryVector b) b.setSafe(r, binary());
    else throw new AssertionError("no values for " + v.getClass());
  }

  private BigDecimal decimal(DecimalVector d, boolean edge) {
    BigInteger unscaled = d.getPrecision() > 18
        ? (edge ? (rnd.nextBoolean() ? MAX_38 : MAX_38.negate()) : new BigInteger(120, rnd).negate())
        : BigInteger.valueOf(rnd.nextLong() % 1_000_000_000_000L);
    return new BigDecimal(unscaled, d.getScale());
  }

  private byte[] binary() {
    byte[] b = new byte[rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(1000)];
    for (int i = 0; i < b.length; i++) b[i] = rnd.nextInt(3) == 0 ? 0 : (byte) rnd.nextInt();
    return b;
  }

  /** Row i of expected and row j of actual hold the same value, compared through Arrow's getters. */
  private static void assertValue(FieldVector expected, int i, FieldVector actual, int j, String where) {
    assertEquals(expected.isNull(i), actual.isNull(j), where + ": null");
    if (expected.isNull(i)) return;
    if (expected instanceof Float4Vector f) {  // the bits: NaN payloads and -0.0 too
      assertEquals(Float.floatToRawIntBits(f.get(i)), Float.floatToRawIntBits(((Float4Vector) actual).get(j)), where);
    } else if (expected instanceof Float8Vector d) {
      assertEquals(Double.doubleToRawLongBits(d.get(i)), Double.doubleToRawLongBits(((Float8Vector) actual).get(j)),
          where);
    } else {
      Object x = expected.getObject(i);
      Object y = actual.getObject(j);
      assertTrue(Objects.deepEquals(x, y), where + ": " + x + " != " + y);
    }
  }

  /** actual's rows are expected's rows {@code rows}, in that order. */
  private static void assertRows(VectorSchemaRoot expected, int[] rows, VectorSchemaRoot actual) {
    assertEquals(rows.length, actual.getRowCount());
    for (int c = 0; c < expected.getFieldVectors().size(); c++) {
      FieldVector e = expected.getVector(c);
      FieldVector a = actual.getVector(c);
      assertEquals(rows.length, a.getValueCount());
      assertEquals(e.getField().getType(), a.getField().getType());
      for (int k = 0; k < rows.length; k++) assertValue(e, rows[k], a, k, e.getName() + " row " + rows[k]);
    }
  }

  private static int[] range(int from, int to) {
    int[] rows = new int[to - from];
    for (int i = 0; i < rows.length; i++) rows[i] = from + i;
    return rows;
  }

  /** The size of a slice of these rows that carries no validity: what a slice of rows without nulls takes. */
  private static long sizeWithoutValidity(VectorSchemaRoot in, int[] rows) {
    long size = ColumnarSlices.HEADER_BYTES;
    for (FieldVector v : in.getFieldVectors()) {
      size += ColumnarSlices.COLUMN_HEADER_BYTES + ColumnarSlices.valuesBytes(ColumnarSlices.kind(v), rows.length);
      if (v instanceof BaseVariableWidthVector var) {
        for (int r : rows) size += var.getValueLength(r);
      }
    }
    return size;
  }

  private VectorSchemaRoot readBack(Schema schema, byte[]... slices) {
    try (SliceAppender appender = new SliceAppender(schema, allocator)) {
      for (byte[] s : slices) appender.append(s);
      return appender.take();
    }
  }

  @Test
  void wholeBatchesRoundTrip() {
    Schema schema = schema();
    for (double nullFraction : new double[] {0, 0.3, 1}) {
      for (int rows : new int[] {1, 8, 64, 1000}) {
        try (VectorSchemaRoot in = batch(schema, rows, nullFraction)) {
          byte[] slice = ColumnarSlices.whole(in.getFieldVectors(), rows);
          assertEquals(rows, ColumnarSlices.rowCount(slice));
          if (nullFraction == 0) assertEquals(sizeWithoutValidity(in, range(0, rows)), slice.length);
          try (VectorSchemaRoot out = readBack(schema, slice)) {
            assertRows(in, range(0, rows), out);
            // as the reduce side reads them, through Spark's ArrowColumnVector
            ArrowColumnVector strings = new ArrowColumnVector(out.getVector(12));
            for (int r = 0; r < rows; r++) {
              String expected = in.getVector(12).isNull(r) ? null : in.getVector(12).getObject(r).toString();
              assertEquals(expected, strings.isNullAt(r) ? null : strings.getUTF8String(r).toString());
            }
          }
        }
      }
    }
  }

  @Test
  void everyRangeReadsBackAsItsRows() {
    Schema schema = schema();
    for (int cuts : new int[] {1, 3, 200}) {
      for (int rows : new int[] {500, 5000}) {
        try (VectorSchemaRoot in = batch(schema, rows, 0.1)) {
          // random runs, some empty: the partitions of a batch the device grouped
          int[] starts = rnd.ints(cuts - 1, 0, rows + 1).sorted().toArray();
          int from = 0;
          for (int p = 0; p <= starts.length; p++) {
            int to = p < starts.length ? starts[p] : rows;
            byte[] slice = ColumnarSlices.range(in.getFieldVectors(), from, to);
            assertEquals(to - from, ColumnarSlices.rowCount(slice));
            try (VectorSchemaRoot out = readBack(schema, slice)) {
              if (from == to) {
                assertNull(out, "an empty range reads back as no batch");
              } else {
                assertRows(in, range(from, to), out);
              }
            }
            from = to;
          }
        }
      }
    }
  }

  @Test
  void slicesAppendAtOddRowOffsets() {
    Schema schema = schema();
    int[] sizes = {1, 3, 7, 13, 1, 64, 5, 129, 2, 200, 8, 1, 65, 33};
    int rows = Arrays.stream(sizes).sum();
    for (double nullFraction : new double[] {0, 0.02, 0.5}) {
      try (VectorSchemaRoot in = batch(schema, rows, nullFraction)) {
        // consecutive runs of rows, each starting inside a byte of the bitmaps: in order they are the batch again
        byte[][] slices = new byte[sizes.length][];
        for (int p = 0, r = 0; p < sizes.length; r += sizes[p++]) {
          slices[p] = ColumnarSlices.range(in.getFieldVectors(), r, r + sizes[p]);
        }
        for (int p = 0, r = 0; nullFraction == 0 && p < sizes.length; r += sizes[p++]) {
          assertEquals(sizeWithoutValidity(in, range(r, r + sizes[p])), slices[p].length, "no nulls, no validity");
        }
        try (SliceAppender appender = new SliceAppender(schema, allocator)) {
          long bytes = 0;
          for (int p = 0; p < sizes.length; p++) {
            appender.append(slices[p]);
            assertTrue(appender.bytes() > bytes, "bytes grow with every slice");
            bytes = appender.bytes();
          }
          assertEquals(rows, appender.rows());
          try (VectorSchemaRoot out = appender.take()) {
            assertRows(in, range(0, rows), out);
          }
        }
      }
    }
  }

  @Test
  void bitsPastTheLastRowAreClear() {
    Schema schema = schema();
    // bits of rows 37 to 39 stay set in the input's bitmaps, as a download's may hold anything there
    try (VectorSchemaRoot in = batch(schema, 40, 0)) {
      for (FieldVector v : in.getFieldVectors()) {
        if (v instanceof BitVector b) b.getDataBuffer().setByte(4, 0xFF);
      }
      in.setRowCount(37);
      byte[] slice = ColumnarSlices.whole(in.getFieldVectors(), 37);
      try (VectorSchemaRoot out = readBack(schema, slice, slice)) {
        int[] twice = new int[74];
        for (int r = 0; r < 74; r++) twice[r] = r % 37;
        assertRows(in, twice, out);
        for (FieldVector v : out.getFieldVectors()) {
          assertEquals(0, v.getValidityBuffer().getByte(9) & 0xFC, v.getName() + " validity past row 74");
          if (v instanceof BitVector b) assertEquals(0, b.getDataBuffer().getByte(9) & 0xFC, "values past row 74");
        }
      }
    }
  }

  @Test
  void bytesCountTheValuesHeld() {
    Schema schema = new Schema(List.of(Field.nullable("i", new ArrowType.Int(32, true)),
        Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    try (VectorSchemaRoot in = VectorSchemaRoot.create(schema, allocator);
        SliceAppender appender = new SliceAppender(schema, allocator)) {
      ((IntVector) in.getVector(0)).setSafe(0, 7);
      ((IntVector) in.getVector(0)).setSafe(1, 8);
      ((VarCharVector) in.getVector(1)).setSafe(0, "abc".getBytes(StandardCharsets.UTF_8));
      ((VarCharVector) in.getVector(1)).setSafe(1, "de".getBytes(StandardCharsets.UTF_8));
      in.setRowCount(2);
      appender.append(ColumnarSlices.whole(in.getFieldVectors(), 2));
      appender.append(ColumnarSlices.whole(in.getFieldVectors(), 2));
      // validity 1 + 16 int bytes; validity 1 + 5 offsets of 4 + 10 data bytes
      assertEquals(17 + 31, appender.bytes());
    }
  }

  @Test
  void batchesOfNoColumnsKeepTheirRowCount() {
    Schema none = new Schema(List.of());
    byte[] whole = ColumnarSlices.whole(List.of(), 5);
    assertEquals(5, ColumnarSlices.rowCount(whole));
    byte[] first = ColumnarSlices.range(List.of(), 0, 1);
    byte[] rest = ColumnarSlices.range(List.of(), 1, 4);
    assertEquals(1, ColumnarSlices.rowCount(first));
    assertEquals(3, ColumnarSlices.rowCount(rest));
    try (VectorSchemaRoot out = readBack(none, whole, first, rest)) {
      assertEquals(9, out.getRowCount());
      assertTrue(out.getFieldVectors().isEmpty());
    }
  }

  @Test
  void noRowsMeanNoBatch() {
    Schema schema = schema();
    try (VectorSchemaRoot in = VectorSchemaRoot.create(schema, allocator)) {  // never allocated
      byte[] empty = ColumnarSlices.whole(in.getFieldVectors(), 0);
      assertEquals(0, ColumnarSlices.rowCount(empty));
      try (SliceAppender appender = new SliceAppender(schema, allocator)) {
        appender.append(empty);
        assertEquals(0, appender.rows());
        assertEquals(0, appender.bytes());
        assertNull(appender.take());
      }
    }
  }

  @Test
  void theRangeOfAllRowsIsTheWholeBatch() {
    Schema schema = schema();
    try (VectorSchemaRoot in = batch(schema, 100, 0.2)) {
      assertArrayEquals(ColumnarSlices.whole(in.getFieldVectors(), 100), ColumnarSlices.range(in.getFieldVectors(), 0,
          100));
    }
  }

  @Test
  void offsetsThatDoNotStartAtZeroAreRebased() {
    // a string vector over a shared data buffer, its offsets from 3: "xyz" precedes its values
    byte[] data = "xyzhello wörld".getBytes(StandardCharsets.UTF_8);
    int[] offsets = {3, 8, 8, 9, data.length};
    Schema schema = new Schema(List.of(Field.nullable("s", ArrowType.Utf8.INSTANCE)));
    try (VarCharVector v = new VarCharVector("s", allocator);
        ArrowBuf validity = allocator.buffer(1);
        ArrowBuf offsetBuffer = allocator.buffer(4L * offsets.length);
        ArrowBuf dataBuffer = allocator.buffer(data.length)) {
      validity.setByte(0, 0b1101);
      for (int i = 0; i < offsets.length; i++) offsetBuffer.setInt(4L * i, offsets[i]);
      dataBuffer.setBytes(0, data);
      v.loadFieldBuffers(new ArrowFieldNode(4, 1), List.of(validity, offsetBuffer, dataBuffer));
      byte[] whole = ColumnarSlices.whole(List.of(v), 4);
      byte[] tail = ColumnarSlices.range(List.of(v), 1, 4);
      try (VectorSchemaRoot all = readBack(schema, whole); VectorSchemaRoot part = readBack(schema, tail)) {
        assertEquals(Arrays.asList("hello", null, " ", "wörld"), strings(all));
        assertEquals(Arrays.asList(null, " ", "wörld"), strings(part));
      }
    }
  }

  private static List<String> strings(VectorSchemaRoot root) {
    VarCharVector v = (VarCharVector) root.getVector(0);
    List<String> strings = new ArrayList<>();
    for (int r = 0; r < root.getRowCount(); r++) strings.add(v.isNull(r) ? null : v.getObject(r).toString());
    return strings;
  }

  @Test
  void takeStartsOver() {
    Schema schema = schema();
    try (VectorSchemaRoot a = batch(schema, 21, 0.2); VectorSchemaRoot b = batch(schema, 11, 0.2);
        SliceAppender appender = new SliceAppender(schema, allocator)) {
      appender.append(ColumnarSlices.whole(a.getFieldVectors(), 21));
      VectorSchemaRoot first = appender.take();
      assertEquals(0, appender.rows());
      assertEquals(0, appender.bytes());
      assertNull(appender.take());
      appender.append(ColumnarSlices.whole(b.getFieldVectors(), 11));
      try (first; VectorSchemaRoot second = appender.take()) {
        assertRows(a, range(0, 21), first);
        assertRows(b, range(0, 11), second);
      }
      appender.append(ColumnarSlices.whole(b.getFieldVectors(), 11));  // left for close() to free
    }
  }

  @Test
  void truncatedSlicesThrowAndAddNothing() {
    Schema schema = schema();
    try (VectorSchemaRoot in = batch(schema, 37, 0.3); SliceAppender appender = new SliceAppender(schema, allocator)) {
      byte[] slice = ColumnarSlices.whole(in.getFieldVectors(), 37);
      appender.append(slice);
      for (int length = 0; length < slice.length; length++) {
        byte[] cut = Arrays.copyOf(slice, length);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> appender.append(cut));
        assertTrue(e.getMessage().startsWith("corrupt columnar shuffle slice"), e.getMessage());
        assertEquals(37, appender.rows());
      }
      byte[] longer = Arrays.copyOf(slice, slice.length + 1);
      assertThrows(IllegalStateException.class, () -> appender.append(longer));
      appender.append(slice);
      try (VectorSchemaRoot out = appender.take()) {
        int[] twice = new int[74];
        for (int r = 0; r < 74; r++) twice[r] = r % 37;
        assertRows(in, twice, out);
      }
    }
  }

  @Test
  void garbledHeadersThrow() {
    Schema schema = schema();
    try (VectorSchemaRoot in = batch(schema, 20, 0.3); SliceAppender appender = new SliceAppender(schema, allocator)) {
      byte[] slice = ColumnarSlices.whole(in.getFieldVectors(), 20);
      int firstColumn = ColumnarSlices.HEADER_BYTES;
      assertGarbled(appender, slice, 0, 0x77, "format tag");
      assertGarbled(appender, slice, 7, 0x80, "negative row count");
      assertGarbled(appender, slice, 7, 0x10, "needs");  // far more rows than the bytes hold
      assertGarbled(appender, slice, 8, 13, "columns where the schema has 14");
      assertGarbled(appender, slice, firstColumn, 8, "kind");
      assertGarbled(appender, slice, firstColumn + 1, 2, "null flag");
      assertThrows(IllegalStateException.class, () -> ColumnarSlices.rowCount(new byte[5]));
      // the string column's first offset, and one offset that goes backwards
      byte[] strings = ColumnarSlices.whole(List.of(in.getVector(12)), 20);
      Schema one = new Schema(List.of(schema.getFields().get(12)));
      try (SliceAppender stringAppender = new SliceAppender(one, allocator)) {
        int offsetsAt = firstColumn + 2 + (strings[firstColumn + 1] == 1 ? 3 : 0);
        assertGarbled(stringAppender, strings, offsetsAt, 1, "offsets from 1");
        byte[] backwards = strings.clone();
        backwards[offsetsAt + 4 * 10 + 3] = (byte) 0x7f;  // offset 10 huge, so offset 11 lies below it
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> stringAppender.append(backwards));
        assertTrue(e.getMessage().contains("below the one before"), e.getMessage());
        assertEquals(0, stringAppender.rows());
        assertNull(stringAppender.take());
      }
    }
  }

  private static void assertGarbled(SliceAppender appender, byte[] slice, int at, int value, String message) {
    byte[] garbled = slice.clone();
    garbled[at] = (byte) value;
    int rows = appender.rows();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> appender.append(garbled));
    assertTrue(e.getMessage().contains(message), e.getMessage());
    assertEquals(rows, appender.rows());
  }

  @Test
  void randomlyGarbledSlicesThrowOrReadAsSomething() {
    Schema schema = schema();
    try (VectorSchemaRoot a = batch(schema, 45, 0.3); VectorSchemaRoot b = batch(schema, 19, 0.3);
        SliceAppender appender = new SliceAppender(schema, allocator)) {
      byte[] first = ColumnarSlices.whole(a.getFieldVectors(), 45);
      appender.append(first);
      int accepted = 0;
      for (int trial = 0; trial < 3000; trial++) {
        byte[] garbled = first.clone();
        for (int flips = 1 + rnd.nextInt(3); flips > 0; flips--) {
          // most trials garble the structure (headers and offsets), not only values
          int at = rnd.nextBoolean() ? rnd.nextInt(Math.min(garbled.length, 400)) : rnd.nextInt(garbled.length);
          garbled[at] ^= (byte) (1 << rnd.nextInt(8));
        }
        try (SliceAppender fresh = new SliceAppender(schema, allocator)) {
          fresh.append(garbled);
          accepted++;
          try (VectorSchemaRoot out = fresh.take()) {
            assertEquals(ColumnarSlices.rowCount(garbled), out.getRowCount());
          }
        } catch (IllegalStateException e) {
          assertTrue(e.getMessage().startsWith("corrupt columnar shuffle slice"), e.getMessage());
        }
        try {
          appender.append(garbled);
          appender.take().close();  // accepted: start over with the one good slice
          appender.append(first);
        } catch (IllegalStateException e) {
          assertEquals(45, appender.rows());
        }
      }
      assertTrue(accepted > 0 && accepted < 3000, accepted + " of 3000 garbled slices accepted");
      // after all the failed appends, a good one still lands right after the first
      appender.append(ColumnarSlices.whole(b.getFieldVectors(), 19));
      try (VectorSchemaRoot out = appender.take()) {
        assertEquals(64, out.getRowCount());
        for (int c = 0; c < TYPES.length; c++) {
          for (int r = 0; r < 45; r++) assertValue(a.getVector(c), r, out.getVector(c), r, "first " + r);
          for (int r = 0; r < 19; r++) assertValue(b.getVector(c), r, out.getVector(c), 45 + r, "second " + r);
        }
      }
    }
  }

  @Test
  void sliceOfAnotherSchemaThrows() {
    Schema schema = schema();
    try (VectorSchemaRoot in = batch(schema, 10, 0);
        SliceAppender ints = new SliceAppender(new Schema(List.of(Field.nullable("i", new ArrowType.Int(32, true)))),
            allocator)) {
      byte[] longs = ColumnarSlices.whole(List.of(in.getVector(4)), 10);
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> ints.append(longs));
      assertTrue(e.getMessage().contains("kind 8, the schema's of 4"), e.getMessage());
    }
  }

  @Test
  void otherVectorKindsAreRefusedByName() {
    Field list = new Field("l", FieldType.nullable(ArrowType.List.INSTANCE),
        List.of(Field.nullable("item", new ArrowType.Int(32, true))));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SliceAppender(new Schema(List.of(list)), allocator));
    assertTrue(e.getMessage().contains("List"), e.getMessage());
    try (LargeVarCharVector large = new LargeVarCharVector("big", allocator);
        ListVector lists = ListVector.empty("lists", allocator)) {
      e = assertThrows(IllegalArgumentException.class, () -> ColumnarSlices.whole(List.of(large), 0));
      assertTrue(e.getMessage().contains("LargeUtf8"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class,
          () -> ColumnarSlices.range(List.of(lists), 0, 0));
      assertTrue(e.getMessage().contains("List"), e.getMessage());
    }
  }

  @Test
  void badArgumentsAreRefused() {
    try (VectorSchemaRoot in = batch(schema(), 10, 0)) {
      List<FieldVector> columns = in.getFieldVectors();
      assertThrows(IllegalArgumentException.class, () -> ColumnarSlices.range(columns, -1, 3));
      assertThrows(IllegalArgumentException.class, () -> ColumnarSlices.range(columns, 5, 4));
      assertThrows(IllegalArgumentException.class, () -> ColumnarSlices.range(columns, 3, 11));
      assertThrows(IllegalArgumentException.class, () -> ColumnarSlices.whole(columns, 11));
      assertNotNull(ColumnarSlices.whole(columns, 9));
    }
  }
}
