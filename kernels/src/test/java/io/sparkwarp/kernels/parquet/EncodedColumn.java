package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.batch.DeviceType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.bytestreamsplit.ByteStreamSplitValuesWriter;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForLong;
import org.apache.parquet.column.values.deltalengthbytearray.DeltaLengthByteArrayValuesWriter;
import org.apache.parquet.column.values.deltastrings.DeltaByteArrayWriter;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.io.api.Binary;

/**
 * A column written as Parquet pages the way parquet-mr lays them out (its own encoders, TestCodecs for
 * compression), in random shapes: several row groups each with or without a dictionary (and a fallback part way to
 * an encoding of the type's, as parquet-mr falls back), page v1 or v2, any codec, pages of random sizes
 * (some empty). What the scan hands the primitives: the compressed input, the blocks that decompress it, and the
 * table of the decompressed pages.
 */
public final class EncodedColumn {
  /** parquet-mr's default dictionary page size, past which a writer falls back to its value encoding. */
  private static final int DICTIONARY_PAGE_BYTES = 1 << 20;

  public final ColumnSpec spec;
  public final byte[] input;
  /** The pages after decompression, to check decompression against. */
  public final byte[] pages;
  public final CompressedBlocks blocks = new CompressedBlocks();

  /** The codecs of the column's blocks, for a failure's message. */
  public String codecs() {
    Set<CompressedBlocks.Codec> codecs = EnumSet.noneOf(CompressedBlocks.Codec.class);
    for (int b = 0; b < blocks.count(); b++) codecs.add(blocks.codec(b));
    return codecs.toString();
  }
  public final PageTable table;

  private final ByteArrayOutputStream in = new ByteArrayOutputStream();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  /** The encoding of every page outside a dictionary, or null for one of the type's at random per page. */
  private final PageTable.Kind valueEncoding;
  /** Rows of every data page, or 0 for 0 to 3000 at random. */
  private final int pageRows;

  private EncodedColumn(ColumnSpec spec, int maxDefinition, PageTable.Kind valueEncoding, int pageRows) {
    this.spec = spec;
    this.table = new PageTable(maxDefinition);
    this.valueEncoding = valueEncoding;
    this.pageRows = pageRows;
    this.input = null;
    this.pages = null;
  }

  private EncodedColumn(EncodedColumn built) {
    this.spec = built.spec;
    this.valueEncoding = built.valueEncoding;
    this.pageRows = built.pageRows;
    this.table = built.table;
    this.input = built.in.toByteArray();
    this.pages = built.out.toByteArray();
    for (int b = 0; b < built.blocks.count(); b++) {
      blocks.add(built.blocks.source(b), built.blocks.sourceBytes(b), built.blocks.target(b),
          built.blocks.targetBytes(b), built.blocks.codec(b));
    }
  }

  /** The compressed input alone, to decompress. */
  public EncodedBlocks compressed() {
    return new EncodedBlocks(input, pages.length, blocks);
  }

  /** The physical type the values of {@code type} are written as (decimals: INT32, INT64 or FLBA at random). */
  public static ColumnSpec specFor(DeviceType type, Random rnd) {
    return switch (type.kind()) {
      case BOOLEAN -> new ColumnSpec(PhysicalType.BOOLEAN, 0, type);
      case BYTE, SHORT, INT, DATE -> new ColumnSpec(PhysicalType.INT32, 0, type);
      case LONG -> new ColumnSpec(PhysicalType.INT64, 0, type);
      // timestamps with a time zone (Spark's TimestampType) may also come as INT96
      case TIMESTAMP -> new ColumnSpec(type.timeZone() != null && rnd.nextBoolean() ? PhysicalType.INT96
          : PhysicalType.INT64, 0, type);
      case FLOAT -> new ColumnSpec(PhysicalType.FLOAT, 0, type);
      case DOUBLE -> new ColumnSpec(PhysicalType.DOUBLE, 0, type);
      case DECIMAL -> rnd.nextBoolean()
          ? new ColumnSpec(PhysicalType.FIXED_LEN_BYTE_ARRAY, (int) Math.ceil((type.precision() * 3.33 + 1) / 8), type)
          : new ColumnSpec(type.precision() <= 9 ? PhysicalType.INT32 : PhysicalType.INT64, 0, type);
      case STRING, BINARY -> new ColumnSpec(PhysicalType.BYTE_ARRAY, 0, type);
      case DECIMAL128 -> throw new IllegalArgumentException("the device decodes no " + type + " column");
    };
  }

  /** The encodings parquet-mr writes values of {@code physical} in outside a dictionary. */
  public static List<PageTable.Kind> valueEncodings(PhysicalType physical) {
    return switch (physical) {
      case BOOLEAN -> List.of(PageTable.Kind.PLAIN, PageTable.Kind.RLE_BOOLEAN);
      case INT32, UINT32, INT64, INT64_MILLIS, UINT64 -> List.of(PageTable.Kind.PLAIN,
          PageTable.Kind.DELTA_BINARY_PACKED,
          PageTable.Kind.BYTE_STREAM_SPLIT);
      case FLOAT, DOUBLE -> List.of(PageTable.Kind.PLAIN, PageTable.Kind.BYTE_STREAM_SPLIT);
      case FIXED_LEN_BYTE_ARRAY -> List.of(PageTable.Kind.PLAIN, PageTable.Kind.DELTA_BYTE_ARRAY,
          PageTable.Kind.BYTE_STREAM_SPLIT);
      case BYTE_ARRAY -> List.of(PageTable.Kind.PLAIN, PageTable.Kind.DELTA_LENGTH_BYTE_ARRAY,
          PageTable.Kind.DELTA_BYTE_ARRAY);
      case INT96 -> List.of(PageTable.Kind.PLAIN);
    };
  }

  /** The non-null values of {@code values} as one page's values in {@code kind} (not PLAIN nor a dictionary's). */
  static byte[] valuesOnly(FieldVector values, ColumnSpec spec, PageTable.Kind kind, Random rnd) {
    return new EncodedColumn(spec, 0, kind, 0).encoded(kind, values, 0, values.getValueCount(), rnd);
  }

  /** Encodes every row of {@code values} (nullable when it has nulls or at random). */
  public static EncodedColumn encode(FieldVector values, ColumnSpec spec, Random rnd) {
    return encode(values, spec, rnd, null);
  }

  /**
   * Encodes every row of {@code values}, the pages outside dictionaries in {@code valueEncoding} (one of
   * {@link #valueEncodings}; null: any of them, per page).
   */
  public static EncodedColumn encode(FieldVector values, ColumnSpec spec, Random rnd, PageTable.Kind valueEncoding) {
    return encode(values, spec, rnd, valueEncoding, 0);
  }

  /**
   * As {@link #encode(FieldVector, ColumnSpec, Random, PageTable.Kind)}, every data page of {@code pageRows} rows
   * (the last of a run fewer) as parquet-mr's 1 MiB pages hold 10^5 rows and more; 0: 0 to 3000 rows at random.
   */
  public static EncodedColumn encode(FieldVector values, ColumnSpec spec, Random rnd, PageTable.Kind valueEncoding,
      int pageRows) {
    int rows = values.getValueCount();
    int maxDefinition = values.getNullCount() > 0 || rnd.nextBoolean() ? 1 : 0;
    EncodedColumn c = new EncodedColumn(spec, maxDefinition, valueEncoding, pageRows);
    int row = 0;
    while (row < rows || c.table.count() == 0) {
      int groupRows = Math.min(rows - row, 1 + rnd.nextInt(Math.max(1, rows / 2 + 1)));
      c.rowGroup(values, row, groupRows, rnd);
      row += groupRows;
    }
    return new EncodedColumn(c);
  }

  private void rowGroup(FieldVector values, int start, int rows, Random rnd) {
    boolean v2 = rnd.nextBoolean();
    CompressedBlocks.Codec codec = CompressedBlocks.Codec.values()[rnd.nextInt(CompressedBlocks.Codec.values().length)];
    int dictionary = -1;
    int dictionaryRows = 0;
    Map<Object, Integer> ids = new HashMap<>();
    // parquet-mr has no boolean dictionaries; a chosen value encoding mostly goes without, or falls back to it part way
    boolean dictionaryGroup = valueEncoding == null ? rnd.nextInt(3) > 0 : rnd.nextInt(4) == 0;
    if (spec.physical() != PhysicalType.BOOLEAN && dictionaryGroup) {
      // parquet-mr falls back to its value encoding part way
      dictionaryRows = rnd.nextInt(valueEncoding == null ? 4 : 2) == 0 ? rnd.nextInt(rows + 1) : rows;
      ByteArrayOutputStream dict = new ByteArrayOutputStream();
      for (int r = start; r < start + dictionaryRows; r++) {
        if (dict.size() >= DICTIONARY_PAGE_BYTES) {  // parquet-mr's limit: the value encoding from here on
          dictionaryRows = r - start;
          break;
        }
        if (values.isNull(r)) continue;
        Object key = key(values, r);
        if (!ids.containsKey(key)) {
          ids.put(key, ids.size());
          plain(dict, values, r);
        }
      }
      byte[] bytes = dict.toByteArray();
      long at = out.size();
      block(bytes, codec, rnd);
      dictionary = table.addDictionary(at, bytes.length, ids.size());
    }
    int r = start;
    do {  // an empty row group still gets a page
      boolean encoded = r < start + dictionaryRows;
      int limit = encoded ? start + dictionaryRows : start + rows;
      int n = pageRows > 0 ? Math.min(limit - r, pageRows)
          : rnd.nextInt(8) == 0 ? 0 : Math.min(limit - r, 1 + rnd.nextInt(3000));
      dataPage(values, r, n, encoded ? dictionary : -1, ids, v2, codec, rnd);
      r += n;
    } while (r < start + rows);
  }

  private void dataPage(FieldVector values, int start, int n, int dictionary, Map<Object, Integer> ids, boolean v2,
      CompressedBlocks.Codec codec, Random rnd) {
    byte[] levels = new byte[0];
    if (table.maxDefinition() == 1) {
      RunLengthBitPackingHybridEncoder enc = encoder(1);
      for (int r = start; r < start + n; r++) write(enc, values.isNull(r) ? 0 : 1);
      levels = bytes(enc);
    }
    ByteArrayOutputStream v = new ByteArrayOutputStream();
    List<PageTable.Kind> encodings = valueEncodings(spec.physical());
    PageTable.Kind kind = valueEncoding != null ? valueEncoding : encodings.get(rnd.nextInt(encodings.size()));
    if (dictionary >= 0) {
      kind = PageTable.Kind.DICTIONARY_ENCODED;
      int width = 32 - Integer.numberOfLeadingZeros(Math.max(0, ids.size() - 1));
      RunLengthBitPackingHybridEncoder enc = encoder(width);
      for (int r = start; r < start + n; r++) if (!values.isNull(r)) write(enc, ids.get(key(values, r)));
      v.write(width);
      v.writeBytes(bytes(enc));
    } else if (kind != PageTable.Kind.PLAIN && kind != PageTable.Kind.RLE_BOOLEAN) {
      v.writeBytes(encoded(kind, values, start, n, rnd));
    } else if (kind == PageTable.Kind.RLE_BOOLEAN) {
      RunLengthBitPackingHybridEncoder enc = encoder(1);
      for (int r = start; r < start + n; r++) if (!values.isNull(r)) write(enc, (int) raw(values, r));
      byte[] b = bytes(enc);
      v.writeBytes(le(b.length, 4));
      v.writeBytes(b);
    } else if (spec.physical() == PhysicalType.BOOLEAN) {
      int k = 0;
      int current = 0;
      for (int r = start; r < start + n; r++) {
        if (values.isNull(r)) continue;
        current |= (int) raw(values, r) << (k++ & 7);
        if ((k & 7) == 0) {
          v.write(current);
          current = 0;
        }
      }
      if ((k & 7) != 0) v.write(current);
    } else {
      for (int r = start; r < start + n; r++) if (!values.isNull(r)) plain(v, values, r);
    }
    byte[] valueBytes = v.toByteArray();
    long at = out.size();
    if (v2) {
      block(levels, CompressedBlocks.Codec.UNCOMPRESSED, rnd);
      block(valueBytes, codec, rnd);
      table.addData(at, levels.length + valueBytes.length, levels.length, n, kind, dictionary);
    } else {
      ByteArrayOutputStream page = new ByteArrayOutputStream();
      if (table.maxDefinition() == 1) {
        page.writeBytes(le(levels.length, 4));
        page.writeBytes(levels);
      }
      page.writeBytes(valueBytes);
      byte[] bytes = page.toByteArray();
      block(bytes, codec, rnd);
      table.addData(at, bytes.length, -1, n, kind, dictionary);
    }
  }

  /**
   * Rows [start, start + n)'s non-null values as parquet-mr's writer of {@code kind} stores them (floats and doubles
   * through BYTE_STREAM_SPLIT's 4- and 8-byte integer writers: the same bytes, NaN payloads kept).
   */
  private byte[] encoded(PageTable.Kind kind, FieldVector values, int start, int n, Random rnd) {
    int[][] shapes = {{128, 4}, {128, 1}, {256, 8}, {512, 4}};  // values per block, miniblocks: parquet-mr's first
    int[] shape = shapes[rnd.nextInt(shapes.length)];
    HeapByteBufferAllocator heap = HeapByteBufferAllocator.getInstance();
    boolean ints = spec.width() == 4;
    boolean bytes = spec.physical() == PhysicalType.BYTE_ARRAY || spec.physical() == PhysicalType.FIXED_LEN_BYTE_ARRAY;
    ValuesWriter writer = switch (kind) {
      case DELTA_BINARY_PACKED -> ints
          ? new DeltaBinaryPackingValuesWriterForInteger(shape[0], shape[1], 64, 1 << 20, heap)
          : new DeltaBinaryPackingValuesWriterForLong(shape[0], shape[1], 64, 1 << 20, heap);
      case DELTA_LENGTH_BYTE_ARRAY -> new DeltaLengthByteArrayValuesWriter(64, 1 << 20, heap);
      case DELTA_BYTE_ARRAY -> new DeltaByteArrayWriter(64, 1 << 20, heap);
      case BYTE_STREAM_SPLIT -> spec.physical() == PhysicalType.FIXED_LEN_BYTE_ARRAY
          ? new ByteStreamSplitValuesWriter.FixedLenByteArrayByteStreamSplitValuesWriter(spec.typeLength(), 64,
              1 << 20, heap)
          : ints ? new ByteStreamSplitValuesWriter.IntegerByteStreamSplitValuesWriter(64, 1 << 20, heap)
              : new ByteStreamSplitValuesWriter.LongByteStreamSplitValuesWriter(64, 1 << 20, heap);
      default -> throw new IllegalArgumentException(kind + " is not a value encoding parquet-mr writes");
    };
    try {
      for (int r = start; r < start + n; r++) {
        if (values.isNull(r)) continue;
        if (bytes) {
          writer.writeBytes(Binary.fromConstantByteArray(bytes(values, r)));
        } else if (ints) {
          writer.writeInteger((int) raw(values, r));
        } else {
          writer.writeLong(raw(values, r));
        }
      }
      return writer.getBytes().toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      writer.close();
    }
  }

  /** Appends one block: its bytes to the pages, and compressed (or not) to the input. */
  private void block(byte[] bytes, CompressedBlocks.Codec codec, Random rnd) {
    byte[] stored = TestCodecs.compress(codec, bytes, rnd);
    blocks.add(in.size(), stored.length, out.size(), bytes.length, codec);
    in.writeBytes(stored);
    out.writeBytes(bytes);
  }

  /** The PLAIN encoding of row r's value. */
  private void plain(ByteArrayOutputStream o, FieldVector values, int r) {
    switch (spec.physical()) {
      case BYTE_ARRAY -> {
        byte[] b = bytes(values, r);
        o.writeBytes(le(b.length, 4));
        o.writeBytes(b);
      }
      case FIXED_LEN_BYTE_ARRAY -> o.writeBytes(bytes(values, r));
      case BOOLEAN -> o.write((int) raw(values, r));
      case INT96 -> {  // as Impala writes them: the day's nanoseconds, never negative, then the Julian day
        long micros = raw(values, r);
        o.writeBytes(le(Math.floorMod(micros, PhysicalType.MICROS_PER_DAY) * 1000, 8));
        o.writeBytes(le(Math.floorDiv(micros, PhysicalType.MICROS_PER_DAY) + PhysicalType.JULIAN_DAY_OF_EPOCH, 4));
      }
      default -> o.writeBytes(le(raw(values, r), spec.width()));
    }
  }

  /** Row r's value of a byte array or fixed-length column: its bytes (decimals big-endian, as Parquet stores them). */
  private byte[] bytes(FieldVector values, int r) {
    if (spec.physical() == PhysicalType.BYTE_ARRAY) return ((BaseVariableWidthVector) values).get(r);
    byte[] b = new byte[spec.typeLength()];
    long v = raw(values, r);
    for (int k = 0; k < b.length; k++) b[k] = (byte) (v >>> (8 * (b.length - 1 - k)));
    return b;
  }

  /**
   * Row r's value as Parquet stores it: integers sign-extended, floats as their bits, decimals unscaled, unsigned
   * 64-bit integers (0 to 2^64 - 1) as their low 64 bits.
   */
  long raw(FieldVector values, int r) {
    if (values instanceof BitVector b) return b.get(r);
    if (values instanceof DecimalVector d) {
      java.math.BigInteger unscaled = ((BigDecimal) d.getObject(r)).unscaledValue();
      return spec.physical() == PhysicalType.UINT64 ? unscaled.longValue() : unscaled.longValueExact();
    }
    long at = (long) r * spec.output().width();
    return switch (spec.output().width()) {
      case 1 -> values.getDataBuffer().getByte(at);
      case 2 -> values.getDataBuffer().getShort(at);
      case 4 -> values.getDataBuffer().getInt(at);
      default -> values.getDataBuffer().getLong(at);
    };
  }

  private Object key(FieldVector values, int r) {
    return spec.physical() == PhysicalType.BYTE_ARRAY ? ByteBuffer.wrap(((BaseVariableWidthVector) values).get(r))
        : (Object) raw(values, r);
  }

  private static RunLengthBitPackingHybridEncoder encoder(int bitWidth) {
    return new RunLengthBitPackingHybridEncoder(bitWidth, 64, 1 << 20, HeapByteBufferAllocator.getInstance());
  }

  private static void write(RunLengthBitPackingHybridEncoder enc, int value) {
    try {
      enc.writeInt(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] bytes(RunLengthBitPackingHybridEncoder enc) {
    try {
      return enc.toBytes().toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] le(long v, int n) {
    byte[] b = new byte[n];
    for (int k = 0; k < n; k++) b[k] = (byte) (v >>> (8 * k));
    return b;
  }
}
