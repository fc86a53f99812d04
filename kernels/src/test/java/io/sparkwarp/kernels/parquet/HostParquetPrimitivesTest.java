package io.sparkwarp.kernels.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.BackendTestBase;
import io.sparkwarp.kernels.testing.RandomVectors;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/**
 * The reference Parquet primitives against parquet-mr's RLE/bit-packed encoder, snappy-java and zstd-jni: every device type
 * in every page shape decodes to the values it was written from, and corrupt input raises a
 * {@link ParquetDataException} (or decodes) but never fails otherwise.
 */
class HostParquetPrimitivesTest extends BackendTestBase {
  private final Random rnd = new Random();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void snappyBlocksMatchSnappyJava() throws IOException {
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    CompressedBlocks blocks = new CompressedBlocks();
    for (int b = 0; b < 60; b++) {
      byte[] raw = LzInputs.random(rnd);
      byte[] packed = Snappy.compress(raw);
      blocks.add(in.size(), packed.length, expected.size(), raw.length, CompressedBlocks.Codec.SNAPPY);
      in.writeBytes(packed);
      expected.writeBytes(raw);
    }
    EncodedBlocks c = new EncodedBlocks(in.toByteArray(), expected.size(), blocks);
    assertArrayEquals(expected.toByteArray(), c.decompress(backend, stream));
  }

  @Test
  void lz4BlocksMatchTheirInput() {
    for (CompressedBlocks.Codec codec : new CompressedBlocks.Codec[] {CompressedBlocks.Codec.LZ4_RAW,
        CompressedBlocks.Codec.LZ4}) {
      ByteArrayOutputStream in = new ByteArrayOutputStream();
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      CompressedBlocks blocks = new CompressedBlocks();
      for (int b = 0; b < 40; b++) {
        byte[] raw = LzInputs.random(rnd);
        byte[] packed = TestCodecs.compress(codec, raw, rnd);
        blocks.add(in.size(), packed.length, expected.size(), raw.length, codec);
        in.writeBytes(packed);
        expected.writeBytes(raw);
      }
      EncodedBlocks c = new EncodedBlocks(in.toByteArray(), expected.size(), blocks);
      assertArrayEquals(expected.toByteArray(), c.decompress(backend, stream), codec.name());
    }
  }

  @Test
  void lz4BlocksThatBreakTheFormatAreNamed() {
    // a copy of 4 bytes from 1 byte back with nothing written yet, then the last sequence ("a")
    assertEquals(DecodeError.BAD_OFFSET, lz4Error(new byte[] {0x00, 1, 0, 0x10, 'a'}, 5));
    // a zero offset
    assertEquals(DecodeError.BAD_OFFSET, lz4Error(new byte[] {0x10, 'a', 0, 0, 0x10, 'b'}, 6));
    // "a" then 4 copies of it, and no last sequence of literals after the match
    assertEquals(DecodeError.TRUNCATED, lz4Error(new byte[] {0x10, 'a', 1, 0}, 5));
    // 15 literals and more in a length byte the block lacks
    assertEquals(DecodeError.TRUNCATED, lz4Error(new byte[] {(byte) 0xf0}, 15));
    // output past the page
    assertEquals(DecodeError.OVERRUN, lz4Error(new byte[] {0x10, 'a', 1, 0, 0x10, 'b'}, 3));
    // Hadoop's framing: a block of 9 bytes in a page of 1; an LZ4 block longer than what is stored
    byte[] framed = {0, 0, 0, 9, 0, 0, 0, 2, 0x10, 'a'};
    assertEquals(DecodeError.OVERRUN, decompressError(framed, 1, CompressedBlocks.Codec.LZ4));
    framed[3] = 1;
    framed[7] = 3;
    assertEquals(DecodeError.TRUNCATED, decompressError(framed, 1, CompressedBlocks.Codec.LZ4));
    framed[7] = 2;
    assertEquals(DecodeError.NONE, decompressError(framed, 1, CompressedBlocks.Codec.LZ4));
  }

  @Test
  void zstdBlocksMatchZstdJni() {
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    CompressedBlocks blocks = new CompressedBlocks();
    for (int level : TestCodecs.ZSTD_LEVELS) {
      // level 19 takes long to compress a MiB, and its blocks look like level 3's
      for (int size : level == 19 ? new int[] {0, 1, 1 << 16} : new int[] {0, 1, 1 << 16, 1 << 20}) {
        for (int kind : new int[] {0, 1, 2, 4}) {  // noise (raw blocks), runs (RLE), words, sorted int64 keys
          byte[] raw = LzInputs.of(kind, size, rnd);
          byte[] packed = TestCodecs.zstd(raw, level, rnd.nextBoolean(), rnd.nextBoolean());
          blocks.add(in.size(), packed.length, expected.size(), raw.length, CompressedBlocks.Codec.ZSTD);
          in.writeBytes(packed);
          expected.writeBytes(raw);
        }
      }
    }
    EncodedBlocks c = new EncodedBlocks(in.toByteArray(), expected.size(), blocks);
    assertArrayEquals(expected.toByteArray(), c.decompress(backend, stream));
  }

  @Test
  void zstdFramesThatBreakTheFormatAreNamed() {
    // one frame (single segment, 1-byte content size 3) of a last raw block of 3 bytes
    byte[] raw = {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, 0x20, 3, 25, 0, 0, 'a', 'b', 'c'};
    assertEquals(DecodeError.NONE, zstdError(raw, 3));
    assertEquals(DecodeError.OVERRUN, zstdError(raw, 2));
    assertEquals(DecodeError.SIZE_MISMATCH, zstdError(java.util.Arrays.copyOf(raw, raw.length), 4));
    assertEquals(DecodeError.TRUNCATED, zstdError(java.util.Arrays.copyOf(raw, raw.length - 1), 3));
    // a skippable frame of 2 bytes, then a frame of a last RLE block: 5 times 'x'
    byte[] rle = {0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 7, 7, 0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, 0x20, 5, 43, 0, 0,
        'x'};
    assertEquals(DecodeError.NONE, zstdError(rle, 5));
    byte[] badMagic = raw.clone();
    badMagic[0] = 0x29;
    assertEquals(DecodeError.BAD_FRAME, zstdError(badMagic, 3));
    byte[] reservedBlock = raw.clone();
    reservedBlock[6] = 31;  // block type 3
    assertEquals(DecodeError.BAD_FRAME, zstdError(reservedBlock, 3));
  }

  private DecodeError zstdError(byte[] input, long outputBytes) {
    return decompressError(input, outputBytes, CompressedBlocks.Codec.ZSTD);
  }

  private DecodeError lz4Error(byte[] input, long outputBytes) {
    return decompressError(input, outputBytes, CompressedBlocks.Codec.LZ4_RAW);
  }

  /** The error decompressing one block of {@code input} into {@code outputBytes} raises, or NONE. */
  private DecodeError decompressError(byte[] input, long outputBytes, CompressedBlocks.Codec codec) {
    CompressedBlocks blocks = new CompressedBlocks().add(0, input.length, 0, outputBytes, codec);
    try {
      new EncodedBlocks(input, outputBytes, blocks).decompress(backend, stream);
      return DecodeError.NONE;
    } catch (ParquetDataException e) {
      return e.error();
    }
  }

  @Test
  void everyTypeDecodesToItsValues() {
    for (DeviceType type : RandomVectors.allTypes()) {
      for (int rows : new int[] {0, 1, 37, 5000, 40_000}) {
        try (FieldVector values = ParquetTesting.values(type, rows, rnd.nextBoolean(), rnd, pageable)) {
          EncodedColumn c = EncodedColumn.encode(values, EncodedColumn.specFor(type, rnd), rnd);
          assertArrayEquals(c.pages, c.compressed().decompress(backend, stream), type + ": decompressed pages");
          DeviceColumn column = ParquetTesting.decode(backend, c, stream);
          try (FieldVector decoded = ParquetTesting.download(backend, column, pageable, stream)) {
            VectorAssertions.assertVectorEquals(values, decoded, type + " x " + rows + " as " + c.spec);
          }
        }
      }
    }
  }

  @Test
  void deltaAndSplitEncodingsDecodeToTheirValues() {
    for (ParquetTesting.Encoded e : ParquetTesting.ENCODED) {
      boolean seen = false;
      for (int rows : new int[] {0, 1, 37, 5000}) {
        try (FieldVector values = ParquetTesting.valuesFor(e.spec(), rows, rows > 1 || rnd.nextBoolean(), rnd,
            pageable)) {
          EncodedColumn c = EncodedColumn.encode(values, e.spec(), rnd, e.kind());
          seen |= c.table.has(e.kind());
          DeviceColumn column = ParquetTesting.decode(backend, c, stream);
          try (FieldVector decoded = ParquetTesting.download(backend, column, pageable, stream)) {
            VectorAssertions.assertVectorEquals(values, decoded, e + " x " + rows);
          }
        }
      }
      assertTrue(seen, e + ": no page was written in it");
    }
  }

  @Test
  void cutDeltaAndSplitPagesAreNamed() {
    for (ParquetTesting.Encoded e : ParquetTesting.ENCODED) {
      try (FieldVector values = ParquetTesting.valuesFor(e.spec(), 1 + rnd.nextInt(300), false, rnd, pageable)) {
        byte[] page = EncodedColumn.valuesOnly(values, e.spec(), e.kind(), rnd);
        int cut = rnd.nextInt(page.length);
        PageTable table = new PageTable(0);
        table.addData(0, cut, -1, values.getValueCount(), e.kind(), -1);
        ParquetDataException err = assertThrows(ParquetDataException.class,
            () -> decodeRaw(java.util.Arrays.copyOf(page, cut), table, e.spec()).close(), e + " cut to " + cut);
        assertTrue(List.of(DecodeError.TRUNCATED, DecodeError.SIZE_MISMATCH).contains(err.error()), e + ": " + err);
      }
    }
  }

  @Test
  void deltaLengthsThatDoNotFitAreNamed() throws IOException {
    ColumnSpec strings = new ColumnSpec(PhysicalType.BYTE_ARRAY, 0, DeviceType.STRING);
    ColumnSpec fixed = new ColumnSpec(PhysicalType.FIXED_LEN_BYTE_ARRAY, 2, DeviceType.decimal(4, 1));
    // prefix lengths, then suffixes: a prefix longer than the value before, a first value with a prefix
    assertEquals(DecodeError.BAD_LENGTH, error(deltaByteArray(new int[] {0, 3}, "ab", "c"), 2, strings,
        PageTable.Kind.DELTA_BYTE_ARRAY));
    assertEquals(DecodeError.BAD_LENGTH, error(deltaByteArray(new int[] {1, 0}, "ab", "c"), 2, strings,
        PageTable.Kind.DELTA_BYTE_ARRAY));
    // a fixed-length value of 3 bytes
    assertEquals(DecodeError.SIZE_MISMATCH, error(deltaByteArray(new int[] {0, 1}, "ab", "cd"), 2, fixed,
        PageTable.Kind.DELTA_BYTE_ARRAY));
    // lengths: negative, or past the page
    ByteArrayOutputStream negative = new ByteArrayOutputStream();
    negative.writeBytes(lengths(2, -1));
    negative.writeBytes("ab".getBytes(StandardCharsets.UTF_8));
    assertEquals(DecodeError.BAD_LENGTH, error(negative.toByteArray(), 2, strings,
        PageTable.Kind.DELTA_LENGTH_BYTE_ARRAY));
    ByteArrayOutputStream past = new ByteArrayOutputStream();
    past.writeBytes(lengths(2, 100));
    past.writeBytes("abc".getBytes(StandardCharsets.UTF_8));
    assertEquals(DecodeError.TRUNCATED, error(past.toByteArray(), 2, strings, PageTable.Kind.DELTA_LENGTH_BYTE_ARRAY));
    // BYTE_STREAM_SPLIT: streams of unequal length, and too short for the values
    ColumnSpec ints = new ColumnSpec(PhysicalType.INT32, 0, DeviceType.INT);
    assertEquals(DecodeError.SIZE_MISMATCH, error(new byte[9], 2, ints, PageTable.Kind.BYTE_STREAM_SPLIT));
    assertEquals(DecodeError.TRUNCATED, error(new byte[8], 3, ints, PageTable.Kind.BYTE_STREAM_SPLIT));
    // encodings a type cannot have
    assertEquals(DecodeError.BAD_ENCODING, error(new byte[8], 2, ints, PageTable.Kind.DELTA_LENGTH_BYTE_ARRAY));
    assertEquals(DecodeError.BAD_ENCODING, error(new byte[8], 2, strings, PageTable.Kind.BYTE_STREAM_SPLIT));
  }

  @Test
  void flippedDeltaAndSplitPagesRaiseOrDecodeButNeverFail() {
    for (int round = 0; round < 200; round++) {
      ParquetTesting.Encoded e = ParquetTesting.ENCODED.get(rnd.nextInt(ParquetTesting.ENCODED.size()));
      try (FieldVector values = ParquetTesting.valuesFor(e.spec(), 1 + rnd.nextInt(2000), true, rnd, pageable)) {
        EncodedColumn c = EncodedColumn.encode(values, e.spec(), rnd, e.kind());
        Corruption.flip(c.input, rnd);
        try (DeviceColumn column = ParquetTesting.decode(backend, c, stream)) {
          assertEquals(values.getValueCount(), column.rowCount(), e + ": rows");
        } catch (ParquetDataException expected) {
          // corruption found: the scan names the file
        }
      }
    }
  }

  /** DELTA_BINARY_PACKED lengths as parquet-mr's writer stores them. */
  private static byte[] lengths(int... values) throws IOException {
    ValuesWriter w = new DeltaBinaryPackingValuesWriterForInteger(128, 4, 64, 1 << 20,
        HeapByteBufferAllocator.getInstance());
    for (int v : values) w.writeInteger(v);
    return w.getBytes().toByteArray();
  }

  /** A DELTA_BYTE_ARRAY page of the given prefix lengths and suffixes. */
  private static byte[] deltaByteArray(int[] prefixes, String... suffixes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(lengths(prefixes));
    out.writeBytes(lengths(java.util.Arrays.stream(suffixes).mapToInt(String::length).toArray()));
    for (String suffix : suffixes) out.writeBytes(suffix.getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  /** The error decoding one page of {@code values} non-null values raises. */
  private DecodeError error(byte[] page, int values, ColumnSpec spec, PageTable.Kind kind) {
    PageTable table = new PageTable(0);
    table.addData(0, page.length, -1, values, kind, -1);
    return assertThrows(ParquetDataException.class, () -> decodeRaw(page, table, spec).close(), kind + " " + spec)
        .error();
  }

  @Test
  void dictionaryIndexPastTheDictionaryIsNamed() {
    PageTable table = new PageTable(0);
    // a dictionary of one int, then a page of 8 indices 2 bits wide, bit-packed: 0,1,... (1 is past the dictionary)
    byte[] pages = {7, 0, 0, 0, 2, 3, 0b01000100, 0, 0};
    int dictionary = table.addDictionary(0, 4, 1);
    table.addData(4, 5, -1, 8, PageTable.Kind.DICTIONARY_ENCODED, dictionary);
    ParquetDataException e = assertThrows(ParquetDataException.class,
        () -> decodeRaw(pages, table, new ColumnSpec(PhysicalType.INT32, 0, DeviceType.INT)));
    assertEquals(1, e.index());
    assertEquals(DecodeError.BAD_INDEX, e.error());
  }

  @Test
  void unsignedIntegersZeroExtendAndMillisecondsScale() {
    // PLAIN pages of two values each: 0xffffffff and 7 as unsigned, -3 and 2^40 as milliseconds
    byte[] unsigned = {-1, -1, -1, -1, 7, 0, 0, 0};
    PageTable table = new PageTable(0);
    table.addData(0, 8, -1, 2, PageTable.Kind.PLAIN, -1);
    try (DeviceColumn c = decodeRaw(unsigned, table, new ColumnSpec(PhysicalType.UINT32, 0, DeviceType.LONG));
        FieldVector v = ParquetTesting.download(backend, c, pageable, stream)) {
      assertEquals(4294967295L, ((BigIntVector) v).get(0));
      assertEquals(7L, ((BigIntVector) v).get(1));
    }
    ByteBuffer millis = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(-3).putLong(1L << 40);
    PageTable millisTable = new PageTable(0);
    millisTable.addData(0, 16, -1, 2, PageTable.Kind.PLAIN, -1);
    DeviceType timestamp = DeviceType.timestamp("UTC");
    try (DeviceColumn c = decodeRaw(millis.array(), millisTable,
        new ColumnSpec(PhysicalType.INT64_MILLIS, 0, timestamp));
        FieldVector v = ParquetTesting.download(backend, c, pageable, stream)) {
      assertEquals(-3000L, v.getDataBuffer().getLong(0));
      assertEquals((1L << 40) * 1000, v.getDataBuffer().getLong(8));
    }
  }

  @Test
  void unsigned64BitIntegersFillSixteenBytesWithoutSign() {
    // a dictionary of 2^64 - 1 and 2^63, three indices 0,1,1 (one bit-packed group of 1-bit indices), then a PLAIN
    // page of 0 and 2^63 - 1: Spark reads each as the decimal(20,0) of its unsigned value
    ByteBuffer pages = ByteBuffer.allocate(16 + 3 + 16).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(-1).putLong(Long.MIN_VALUE).put((byte) 1).put((byte) 3).put((byte) 0b110)
        .putLong(0).putLong(Long.MAX_VALUE);
    PageTable table = new PageTable(0);
    int dictionary = table.addDictionary(0, 16, 2);
    table.addData(16, 3, -1, 3, PageTable.Kind.DICTIONARY_ENCODED, dictionary);
    table.addData(19, 16, -1, 2, PageTable.Kind.PLAIN, -1);
    try (DeviceColumn c = decodeRaw(pages.array(), table, new ColumnSpec(PhysicalType.UINT64, 0,
        DeviceType.decimal(20, 0)));
        FieldVector v = ParquetTesting.download(backend, c, pageable, stream)) {
      BigInteger top = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
      List<BigInteger> expected = List.of(top, BigInteger.ONE.shiftLeft(63), BigInteger.ONE.shiftLeft(63),
          BigInteger.ZERO, BigInteger.valueOf(Long.MAX_VALUE));
      for (int r = 0; r < expected.size(); r++) {
        assertEquals(expected.get(r), ((DecimalVector) v).getObject(r).unscaledValue(), "row " + r);
      }
    }
  }

  @Test
  void millisecondsPastTheMicrosecondRangeAreNamed() {
    // Spark's reader fails such a value too (Math.multiplyExact)
    ByteBuffer millis = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(1).putLong(Long.MAX_VALUE / 1000 + 1);
    PageTable table = new PageTable(0);
    table.addData(0, 8, -1, 1, PageTable.Kind.PLAIN, -1);
    table.addData(8, 8, -1, 1, PageTable.Kind.PLAIN, -1);
    ParquetDataException e = assertThrows(ParquetDataException.class, () -> decodeRaw(millis.array(), table,
        new ColumnSpec(PhysicalType.INT64_MILLIS, 0, DeviceType.timestamp("UTC"))));
    assertEquals(1, e.index());
    assertEquals(DecodeError.OVERFLOW, e.error());
  }

  @Test
  void aBatchDecodesEachColumnAsItsValues() {
    List<FieldVector> values = new ArrayList<>();
    try {
      List<EncodedColumn> columns = new ArrayList<>();
      for (int c = 0; c < 8; c++) {
        DeviceType type = RandomVectors.allTypes()[rnd.nextInt(RandomVectors.allTypes().length)];
        values.add(ParquetTesting.values(type, c == 0 ? 0 : 1 + rnd.nextInt(5000), rnd.nextBoolean(), rnd, pageable));
        columns.add(EncodedColumn.encode(values.get(c), EncodedColumn.specFor(type, rnd), rnd));
      }
      List<FieldVector> decoded = EncodedBatch.of(columns).decode(backend, pageable);
      try {
        for (int c = 0; c < values.size(); c++) {
          VectorAssertions.assertVectorEquals(values.get(c), decoded.get(c), "column " + c + " " + columns.get(c).spec);
        }
      } finally {
        Closeables.closeAll(decoded);
      }
    } finally {
      Closeables.closeAll(values);
    }
  }

  @Test
  void aBatchNamesItsCorruptColumnAndPage() {
    // longs, then milliseconds past the microsecond range in the second page of the second column
    ByteBuffer pages = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(7).putLong(8).putLong(1).putLong(Long.MAX_VALUE / 1000 + 1);
    PageTable longs = new PageTable(0);
    longs.addData(0, 16, -1, 2, PageTable.Kind.PLAIN, -1);
    PageTable millis = new PageTable(0);
    millis.addData(16, 8, -1, 1, PageTable.Kind.PLAIN, -1);
    millis.addData(24, 8, -1, 1, PageTable.Kind.PLAIN, -1);
    try (DeviceBuffer buffer = ParquetTesting.upload(backend, pages.array(), stream)) {
      ParquetDataException e = assertThrows(ParquetDataException.class, () -> backend.parquet().decodeBatch(buffer,
          buffer, new CompressedBlocks(), List.of(longs, millis), List.of(new ColumnSpec(PhysicalType.INT64, 0,
              DeviceType.LONG), new ColumnSpec(PhysicalType.INT64_MILLIS, 0, DeviceType.timestamp("UTC"))), stream));
      assertEquals(1, e.column());
      assertEquals(1, e.index());
      assertEquals(DecodeError.OVERFLOW, e.error());
    }
  }

  @Test
  void snappyCopyBeforeTheStartIsNamed() {
    // length 8, then a copy of 4 bytes from 1 byte back with nothing written yet
    byte[] input = {8, 0b00000001, 1};
    CompressedBlocks blocks = new CompressedBlocks().add(0, input.length, 0, 8, CompressedBlocks.Codec.SNAPPY);
    ParquetDataException e = assertThrows(ParquetDataException.class,
        () -> new EncodedBlocks(input, 8, blocks).decompress(backend, stream));
    assertEquals(DecodeError.BAD_OFFSET, e.error());
  }

  @Test
  void flippedBytesRaiseOrDecodeButNeverFail() {
    for (int round = 0; round < 200; round++) {
      DeviceType type = RandomVectors.allTypes()[rnd.nextInt(RandomVectors.allTypes().length)];
      try (FieldVector values = ParquetTesting.values(type, 1 + rnd.nextInt(3000), true, rnd, pageable)) {
        EncodedColumn c = EncodedColumn.encode(values, EncodedColumn.specFor(type, rnd), rnd);
        Corruption.flip(c.input, rnd);
        try {
          ParquetTesting.decode(backend, c, stream).close();
        } catch (ParquetDataException expected) {
          // corruption found: the scan names the file
        }
      }
    }
  }

  private DeviceColumn decodeRaw(byte[] pages, PageTable table, ColumnSpec spec) {
    try (DeviceBuffer buffer = ParquetTesting.upload(backend, pages, stream)) {
      return backend.parquet().decode(buffer, table, spec, stream);
    }
  }
}
