package io.sparkwarp.it.data;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.deltalengthbytearray.DeltaLengthByteArrayValuesWriter;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Parquet files parquet-mr writes in the value encodings Spark's own writer picks only for page v2 outside
 * dictionaries, or never: columns id, s (string), bin (binary), decf (decimal(10, 2) in 5 fixed bytes), f (float),
 * d (double), i (int) and l (long), nulls in all but id; strings sharing prefixes with the row before, empty,
 * multi-byte UTF-8, longer than 32 bytes and than 1 KiB; small pages and row groups.
 */
public final class EncodedFiles {
  /** How the file is written. */
  public enum Shape {
    /** Page v2 without dictionaries: DELTA_BYTE_ARRAY byte arrays and decimals, DELTA_BINARY_PACKED integers. */
    DELTA_BYTE_ARRAY,
    /**
     * Page v2, runs of 100 rows of few values and of 100 of many, pages of 50 rows and 2 KiB dictionaries: column
     * chunks of dictionary-encoded pages, then DELTA_BYTE_ARRAY (and DELTA_BINARY_PACKED) ones once the dictionary
     * is full.
     */
    DELTA_BYTE_ARRAY_AFTER_DICTIONARY,
    /** Byte arrays DELTA_LENGTH_BYTE_ARRAY (parquet-mr's writer of it), the rest PLAIN. */
    DELTA_LENGTH_BYTE_ARRAY,
    /** parquet-mr's extended BYTE_STREAM_SPLIT: floating point, integers and fixed-length decimals. */
    BYTE_STREAM_SPLIT
  }

  private static final MessageType SCHEMA = MessageTypeParser.parseMessageType("message m { required int64 id; "
      + "optional binary s (STRING); optional binary bin; optional fixed_len_byte_array(5) decf (DECIMAL(10,2)); "
      + "optional float f; optional double d; optional int32 i; optional int64 l; }");

  private EncodedFiles() {}

  /** Writes {@code rows} random rows to {@code file}; returns the data page encodings of each of its column chunks. */
  public static List<Set<String>> write(Path file, int rows, Shape shape, Random rnd) throws IOException {
    Files.createDirectories(file.getParent());
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
    boolean v2 = shape == Shape.DELTA_BYTE_ARRAY || shape == Shape.DELTA_BYTE_ARRAY_AFTER_DICTIONARY;
    ExampleParquetWriter.Builder builder = ExampleParquetWriter.builder(path).withType(SCHEMA)
        .withConf(new Configuration()).withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        .withCompressionCodec(CompressionCodecName.SNAPPY).withPageSize(4096).withRowGroupSize(64 * 1024L)
        .withWriterVersion(v2 ? ParquetProperties.WriterVersion.PARQUET_2_0 : ParquetProperties.WriterVersion.PARQUET_1_0)
        .withDictionaryEncoding(shape == Shape.DELTA_BYTE_ARRAY_AFTER_DICTIONARY).withDictionaryPageSize(2048)
        .withPageRowCountLimit(50);
    if (shape == Shape.DELTA_LENGTH_BYTE_ARRAY) properties(builder).withValuesWriterFactory(new DeltaLengthBytes());
    if (shape == Shape.BYTE_STREAM_SPLIT) properties(builder).withExtendedByteStreamSplitEncoding(true);
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> writer = builder.build()) {
      String text = "";
      byte[] bytes = new byte[0];
      for (int r = 0; r < rows; r++) {
        Group g = groups.newGroup().append("id", (long) r);
        boolean few = shape == Shape.DELTA_BYTE_ARRAY_AFTER_DICTIONARY && (r / 100) % 2 == 0;
        text = few ? "few " + rnd.nextInt(4) : continued(text, rnd);
        bytes = few ? new byte[] {(byte) rnd.nextInt(4)} : continued(bytes, rnd);
        long big = few ? rnd.nextInt(4) : rnd.nextLong();
        if (rnd.nextInt(10) > 0) g.append("s", text);
        if (rnd.nextInt(10) > 0) g.append("bin", Binary.fromConstantByteArray(bytes));
        if (rnd.nextInt(10) > 0) g.append("decf", Binary.fromConstantByteArray(fixed(big % 10_000_000_000L)));
        if (rnd.nextInt(10) > 0) g.append("f", rnd.nextFloat() * 2000 - 1000);
        if (rnd.nextInt(10) > 0) g.append("d", rnd.nextGaussian() * 1e6);
        if (rnd.nextInt(10) > 0) g.append("i", few || rnd.nextInt(4) == 0 ? (int) (big & 127) : rnd.nextInt());
        if (rnd.nextInt(10) > 0) g.append("l", big);
        writer.write(g);
      }
    }
    List<Set<String>> encodings = new ArrayList<>();
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, new Configuration()))) {
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          encodings.add(chunk.getEncodingStats().getDataEncodings().stream().map(Enum::name)
              .collect(Collectors.toSet()));
        }
      }
    }
    return encodings;
  }

  /**
   * The writer's encoding properties, to set what its builder does not offer (parquet-mr 1.16's ParquetWriter.Builder
   * has no extended BYTE_STREAM_SPLIT and no writer factory).
   */
  private static ParquetProperties.Builder properties(ParquetWriter.Builder<?, ?> builder) {
    try {
      Field f = ParquetWriter.Builder.class.getDeclaredField("encodingPropsBuilder");
      f.setAccessible(true);
      return (ParquetProperties.Builder) f.get(builder);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("parquet-mr's writer builder changed", e);
    }
  }

  /** parquet-mr's page v1 writers, with its DELTA_LENGTH_BYTE_ARRAY writer for byte arrays. */
  private static final class DeltaLengthBytes implements ValuesWriterFactory {
    private final DefaultV1ValuesWriterFactory others = new DefaultV1ValuesWriterFactory();
    private ParquetProperties properties;

    @Override
    public void initialize(ParquetProperties p) {
      properties = p;
      others.initialize(p);
    }

    @Override
    public ValuesWriter newValuesWriter(ColumnDescriptor d) {
      if (d.getPrimitiveType().getPrimitiveTypeName() != PrimitiveTypeName.BINARY) return others.newValuesWriter(d);
      return new DeltaLengthByteArrayValuesWriter(properties.getInitialSlabSize(), properties.getPageSizeThreshold(),
          properties.getAllocator());
    }
  }

  /** The row before's string continued: most keep a prefix of it, others are empty, multi-byte or long. */
  private static String continued(String before, Random rnd) {
    return switch (rnd.nextInt(8)) {
      case 0 -> "";
      case 1 -> "ü日本😀".repeat(1 + rnd.nextInt(3));
      case 2 -> before.isEmpty() ? "a" + ascii(40, rnd) : before.substring(0, before.offsetByCodePoints(0,
          rnd.nextInt(before.codePointCount(0, before.length()) + 1))) + ascii(33 + rnd.nextInt(60), rnd);
      case 3 -> ascii(1025 + rnd.nextInt(1000), rnd);
      default -> before.substring(0, before.offsetByCodePoints(0, rnd.nextInt(before.codePointCount(0,
          before.length()) + 1))) + (rnd.nextBoolean() ? "" : ascii(rnd.nextInt(12), rnd));
    };
  }

  /** The row before's bytes continued, as {@link #continued(String, Random)}: any bytes. */
  private static byte[] continued(byte[] before, Random rnd) {
    int keep = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(before.length + 1);
    byte[] tail = new byte[rnd.nextInt(8) == 0 ? 1025 + rnd.nextInt(1000) : rnd.nextInt(40)];
    rnd.nextBytes(tail);
    byte[] b = java.util.Arrays.copyOf(before, keep + tail.length);
    System.arraycopy(tail, 0, b, keep, tail.length);
    return b;
  }

  private static String ascii(int n, Random rnd) {
    StringBuilder sb = new StringBuilder(n);
    for (int k = 0; k < n; k++) sb.append((char) ('a' + rnd.nextInt(26)));
    return sb.toString();
  }

  /** A decimal's unscaled value in 5 big-endian bytes. */
  private static byte[] fixed(long unscaled) {
    byte[] b = new byte[5];
    for (int k = 4; k >= 0; k--, unscaled >>= 8) b[k] = (byte) unscaled;
    return b;
  }
}
