package io.sparkwarp.parquet;

import io.sparkwarp.kernels.batch.DeviceType;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * Parquet files written by parquet-mr itself, with a column of every type the device decodes, random values (half
 * from a small pool, so dictionaries stay), nulls, small pages and row groups; page v1 or v2, dictionary on or off,
 * BYTE_STREAM_SPLIT floating point or not (at random), in any codec, checksums on. Keeps the values written, row
 * by row (null, a Long, or a byte[]).
 */
final class TestFiles {
  /** The scan's view of the columns, in schema order. */
  static final List<ScanColumn> COLUMNS = List.of(new ScanColumn("b", DeviceType.BOOLEAN),
      new ScanColumn("i8", DeviceType.BYTE), new ScanColumn("i16", DeviceType.SHORT),
      new ScanColumn("i32", DeviceType.INT), new ScanColumn("i64", DeviceType.LONG),
      new ScanColumn("f", DeviceType.FLOAT), new ScanColumn("d", DeviceType.DOUBLE),
      new ScanColumn("dt", DeviceType.DATE), new ScanColumn("ts", DeviceType.timestamp("UTC")),
      new ScanColumn("dec9", DeviceType.decimal(9, 2)), new ScanColumn("dec18", DeviceType.decimal(18, 4)),
      new ScanColumn("decf", DeviceType.decimal(10, 2)), new ScanColumn("s", DeviceType.STRING),
      new ScanColumn("bin", DeviceType.BINARY));

  static final MessageType SCHEMA = Types.buildMessage()
      .optional(PrimitiveTypeName.BOOLEAN).named("b")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(8, true)).named("i8")
      .required(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.intType(16, true)).named("i16")
      .optional(PrimitiveTypeName.INT32).named("i32")
      .optional(PrimitiveTypeName.INT64).named("i64")
      .optional(PrimitiveTypeName.FLOAT).named("f")
      .required(PrimitiveTypeName.DOUBLE).named("d")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.dateType()).named("dt")
      .optional(PrimitiveTypeName.INT64)
      .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS)).named("ts")
      .optional(PrimitiveTypeName.INT32).as(LogicalTypeAnnotation.decimalType(2, 9)).named("dec9")
      .optional(PrimitiveTypeName.INT64).as(LogicalTypeAnnotation.decimalType(4, 18)).named("dec18")
      .optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(5).as(LogicalTypeAnnotation.decimalType(2, 10))
      .named("decf")
      .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
      .required(PrimitiveTypeName.BINARY).named("bin")
      .named("t");

  /** Values written: rows x columns, each null, a Long (integers, float and double bits, unscaled decimals) or bytes. */
  final List<Object[]> rows = new ArrayList<>();
  final Path path;

  private TestFiles(Path path) {
    this.path = path;
  }

  /** Writes {@code n} random rows to {@code file} in pages of about 4 KiB. */
  static TestFiles write(java.nio.file.Path file, int n, boolean v2, boolean dictionary, CompressionCodecName codec,
      Random rnd)
      throws IOException {
    return write(file, n, v2, dictionary, codec, 4096, 96 * 1024, rnd);
  }

  /** Writes {@code n} random rows to {@code file} in pages and row groups of about the bytes given. */
  static TestFiles write(java.nio.file.Path file, int n, boolean v2, boolean dictionary, CompressionCodecName codec,
      int pageBytes, int rowGroupBytes, Random rnd)
      throws IOException {
    Files.deleteIfExists(file);
    TestFiles out = new TestFiles(new Path(file.toUri()));
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    Object[][] pools = new Object[COLUMNS.size()][50];
    for (int c = 0; c < COLUMNS.size(); c++) {
      for (int k = 0; k < 50; k++) pools[c][k] = value(c, rnd);
    }
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(out.path).withType(SCHEMA)
        .withConf(new Configuration()).withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        .withWriterVersion(v2 ? ParquetProperties.WriterVersion.PARQUET_2_0 : ParquetProperties.WriterVersion.PARQUET_1_0)
        .withDictionaryEncoding(dictionary).withByteStreamSplitEncoding(rnd.nextBoolean()).withCompressionCodec(codec)
        .withPageSize(pageBytes).withRowGroupSize(rowGroupBytes).withPageWriteChecksumEnabled(true).build()) {
      for (int r = 0; r < n; r++) {
        Object[] row = new Object[COLUMNS.size()];
        Group g = groups.newGroup();
        for (int c = 0; c < COLUMNS.size(); c++) {
          boolean required = SCHEMA.getType(c).isRepetition(Repetition.REQUIRED);
          if (!required && rnd.nextInt(10) == 0) continue;
          row[c] = rnd.nextBoolean() ? pools[c][rnd.nextInt(50)] : value(c, rnd);
          add(g, c, row[c]);
        }
        writer.write(g);
        out.rows.add(row);
      }
    }
    return out;
  }

  private static Object value(int c, Random rnd) {
    return switch (COLUMNS.get(c).name()) {
      case "b" -> (long) rnd.nextInt(2);
      case "i8" -> (long) (byte) rnd.nextInt();
      case "i16" -> (long) (short) rnd.nextInt();
      case "i32", "dt" -> (long) rnd.nextInt();
      case "f" -> (long) Float.floatToRawIntBits(rnd.nextFloat() * 1000 - 500);
      case "d" -> Double.doubleToRawLongBits(rnd.nextGaussian());
      case "dec9" -> (long) rnd.nextInt(1_000_000_000) * (rnd.nextBoolean() ? 1 : -1);
      case "decf" -> rnd.nextLong() % 10_000_000_000L;
      case "dec18" -> rnd.nextLong() % 1_000_000_000_000_000_000L;
      case "s", "bin" -> {
        byte[] b = new byte[rnd.nextInt(30)];
        for (int i = 0; i < b.length; i++) b[i] = (byte) (c == 12 ? 'a' + rnd.nextInt(26) : rnd.nextInt());
        yield b;
      }
      default -> rnd.nextLong();
    };
  }

  private static void add(Group g, int c, Object v) {
    switch (SCHEMA.getType(c).asPrimitiveType().getPrimitiveTypeName()) {
      case BOOLEAN -> g.add(c, (Long) v != 0);
      case INT32 -> g.add(c, (int) (long) (Long) v);
      case INT64 -> g.add(c, (Long) v);
      case FLOAT -> g.add(c, Float.intBitsToFloat((int) (long) (Long) v));
      case DOUBLE -> g.add(c, Double.longBitsToDouble((Long) v));
      case FIXED_LEN_BYTE_ARRAY -> {
        byte[] b = new byte[5];
        long x = (Long) v;
        for (int k = 4; k >= 0; k--, x >>= 8) b[k] = (byte) x;
        g.add(c, Binary.fromConstantByteArray(b));
      }
      default -> g.add(c, Binary.fromConstantByteArray((byte[]) v));
    }
  }
}
