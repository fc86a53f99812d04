package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;

/** Shared by the Parquet primitive tests: random columns with repeats, and the scan's steps on one backend. */
final class ParquetTesting {
  /**
   * The stored forms that convert on the way: unsigned 32- and 64-bit integers, millisecond timestamps (both kinds).
   */
  static final List<ColumnSpec> CONVERTING = List.of(new ColumnSpec(PhysicalType.UINT32, 0, DeviceType.LONG),
      new ColumnSpec(PhysicalType.UINT64, 0, DeviceType.decimal(20, 0)),
      new ColumnSpec(PhysicalType.INT64_MILLIS, 0, DeviceType.timestamp("UTC")),
      new ColumnSpec(PhysicalType.INT64_MILLIS, 0, DeviceType.timestamp(null)));

  /** A column type and one of the value encodings that are not for every type, to write all its pages in. */
  record Encoded(ColumnSpec spec, PageTable.Kind kind) {
    @Override
    public String toString() {
      return spec + " in " + kind;
    }
  }

  /**
   * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT over every physical type parquet-mr writes them
   * for, into the device types those read as (fixed-length decimals of 1 to 8 bytes).
   */
  static final List<Encoded> ENCODED = List.of(
      new Encoded(new ColumnSpec(PhysicalType.BYTE_ARRAY, 0, DeviceType.STRING), PageTable.Kind.DELTA_LENGTH_BYTE_ARRAY),
      new Encoded(new ColumnSpec(PhysicalType.BYTE_ARRAY, 0, DeviceType.BINARY), PageTable.Kind.DELTA_LENGTH_BYTE_ARRAY),
      new Encoded(new ColumnSpec(PhysicalType.BYTE_ARRAY, 0, DeviceType.STRING), PageTable.Kind.DELTA_BYTE_ARRAY),
      new Encoded(new ColumnSpec(PhysicalType.BYTE_ARRAY, 0, DeviceType.BINARY), PageTable.Kind.DELTA_BYTE_ARRAY),
      new Encoded(new ColumnSpec(PhysicalType.FIXED_LEN_BYTE_ARRAY, 1, DeviceType.decimal(2, 1)),
          PageTable.Kind.DELTA_BYTE_ARRAY),
      new Encoded(new ColumnSpec(PhysicalType.FIXED_LEN_BYTE_ARRAY, 5, DeviceType.decimal(10, 2)),
          PageTable.Kind.DELTA_BYTE_ARRAY),
      new Encoded(new ColumnSpec(PhysicalType.FIXED_LEN_BYTE_ARRAY, 8, DeviceType.decimal(18, 4)),
          PageTable.Kind.DELTA_BYTE_ARRAY),
      new Encoded(new ColumnSpec(PhysicalType.FIXED_LEN_BYTE_ARRAY, 5, DeviceType.decimal(10, 2)),
          PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.FIXED_LEN_BYTE_ARRAY, 8, DeviceType.decimal(18, 4)),
          PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.FLOAT, 0, DeviceType.FLOAT), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.DOUBLE, 0, DeviceType.DOUBLE), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.INT32, 0, DeviceType.INT), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.INT32, 0, DeviceType.SHORT), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.INT32, 0, DeviceType.DATE), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.INT32, 0, DeviceType.decimal(9, 2)), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.UINT32, 0, DeviceType.LONG), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.INT64, 0, DeviceType.LONG), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.INT64, 0, DeviceType.timestamp("UTC")), PageTable.Kind.BYTE_STREAM_SPLIT),
      new Encoded(new ColumnSpec(PhysicalType.INT64, 0, DeviceType.decimal(18, 3)), PageTable.Kind.BYTE_STREAM_SPLIT));

  private ParquetTesting() {}

  /**
   * {@code rows} values for a column of {@code spec}, some null when {@code nulls}: byte arrays as
   * {@link #sharedPrefixStrings}, the rest as {@link #values} (unsigned integers in their range).
   */
  static FieldVector valuesFor(ColumnSpec spec, int rows, boolean nulls, Random rnd, BufferAllocator allocator) {
    if (spec.physical() == PhysicalType.BYTE_ARRAY) return sharedPrefixStrings(spec.output(), rows, nulls, rnd, allocator);
    if (spec.physical() == PhysicalType.UINT64) return unsigned64(rows, nulls, rnd, allocator);
    FieldVector v = values(spec.output(), rows, nulls, rnd, allocator);
    if (spec.physical() == PhysicalType.UINT32) {
      for (int r = 0; r < rows; r++) v.getDataBuffer().setLong(8L * r, v.getDataBuffer().getLong(8L * r) & 0xffffffffL);
    }
    return v;
  }

  /**
   * {@code rows} strings (or binaries) that DELTA_BYTE_ARRAY has prefixes to share in: most continue the one before
   * after a common prefix (up to all of it: repeats), the others empty, multi-byte UTF-8, longer than 32 bytes or
   * than 1 KiB; some null when {@code nulls}.
   */
  static FieldVector sharedPrefixStrings(DeviceType type, int rows, boolean nulls, Random rnd,
      BufferAllocator allocator) {
    BaseVariableWidthVector v = (BaseVariableWidthVector) RandomVectors.random(type, 0, 0, 1, rnd, allocator);
    v.allocateNew();
    double nullFraction = nulls ? rnd.nextDouble() / 2 : 0;
    byte[] previous = new byte[0];
    for (int r = 0; r < rows; r++) {
      if (rnd.nextDouble() < nullFraction) continue;  // left null
      byte[] value = switch (rnd.nextInt(8)) {
        case 0 -> new byte[0];
        case 1 -> RandomVectors.randomString(rnd, 40, true);
        case 2 -> atLeast(33 + rnd.nextInt(100), rnd);
        case 3 -> atLeast(1025 + rnd.nextInt(2000), rnd);
        default -> {
          int keep = rnd.nextInt(previous.length + 1);
          while (keep < previous.length && (previous[keep] & 0xc0) == 0x80) keep++;  // whole UTF-8 characters
          byte[] tail = rnd.nextInt(4) == 0 ? new byte[0] : RandomVectors.randomString(rnd, 20, false);
          byte[] b = java.util.Arrays.copyOf(previous, keep + tail.length);
          System.arraycopy(tail, 0, b, keep, tail.length);
          yield b;
        }
      };
      v.setSafe(r, value);
      previous = value;
    }
    v.setValueCount(rows);
    return v;
  }

  /** Random UTF-8 of at least {@code bytes} bytes. */
  private static byte[] atLeast(int bytes, Random rnd) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    while (out.size() < bytes) out.writeBytes(RandomVectors.randomString(rnd, 64, false));
    return out.toByteArray();
  }

  /**
   * {@code rows} unsigned 64-bit integers as decimal(20,0), some null when {@code nulls}: {@link #values}' longs read
   * as unsigned, so half are 2^63 or more (2^64 - 1 among them when -1 is drawn).
   */
  private static FieldVector unsigned64(int rows, boolean nulls, Random rnd, BufferAllocator allocator) {
    try (BigIntVector longs = (BigIntVector) values(DeviceType.LONG, rows, nulls, rnd, allocator)) {
      DecimalVector v = new DecimalVector("c", allocator, 20, 0);
      v.allocateNew(rows);
      for (int r = 0; r < rows; r++) {
        if (!longs.isNull(r)) v.set(r, new BigDecimal(new BigInteger(Long.toUnsignedString(longs.get(r)))));
      }
      v.setValueCount(rows);
      return v;
    }
  }

  /**
   * Divides every value of a millisecond column by 2^12: milliseconds that convert to microseconds without overflow
   * (other columns stay as they are).
   */
  static void shrinkMillis(ColumnSpec spec, FieldVector values) {
    if (spec.physical() != PhysicalType.INT64_MILLIS) return;
    for (int r = 0; r < values.getValueCount(); r++) {
      values.getDataBuffer().setLong(8L * r, values.getDataBuffer().getLong(8L * r) >> 12);
    }
  }

  /**
   * {@code rows} values of {@code type} drawn from a pool of random values (small pools give dictionary bit widths
   * of 0 to a few and long runs), some null when {@code nulls}.
   */
  static FieldVector values(DeviceType type, int rows, boolean nulls, Random rnd, BufferAllocator allocator) {
    int poolSize = 1 + (rnd.nextBoolean() ? rnd.nextInt(5) : rnd.nextInt(Math.max(1, rows)));
    try (FieldVector pool = RandomVectors.random(type, poolSize, 0, 40, rnd, allocator)) {
      FieldVector v = RandomVectors.random(type, 0, 0, 1, rnd, allocator);
      v.allocateNew();
      double nullFraction = nulls ? rnd.nextDouble() : 0;
      int previous = 0;
      for (int r = 0; r < rows; r++) {
        if (rnd.nextDouble() < nullFraction) continue;  // left null
        int from = rnd.nextInt(4) == 0 ? previous : rnd.nextInt(poolSize);
        v.copyFromSafe(from, r, pool);
        previous = from;
      }
      v.setValueCount(rows);
      return v;
    }
  }

  /** Uploads the column's compressed input, decompresses it into a pages buffer and decodes the column. */
  static DeviceColumn decode(Backend backend, EncodedColumn c, DeviceStream stream) {
    try (DeviceBuffer input = upload(backend, c.input, stream);
        DeviceBuffer pages = backend.allocate(c.pages.length, stream)) {
      backend.parquet().decompress(input, pages, c.blocks, stream);
      DeviceColumn column = backend.parquet().decode(pages, c.table, c.spec, stream);
      stream.synchronize();
      return column;
    }
  }

  static DeviceBuffer upload(Backend backend, byte[] bytes, DeviceStream stream) {
    DeviceBuffer buffer = backend.allocate(bytes.length, stream);
    try (HostBlock staging = backend.transferMemory().pool().allocate(bytes.length)) {
      MemoryUtil.copyToMemory(bytes, 0, staging.address(), bytes.length);
      backend.copyHostToDevice(staging.address(), buffer, 0, bytes.length, stream);
      stream.synchronize();
      return buffer;
    } catch (RuntimeException e) {
      buffer.close();
      throw e;
    }
  }

  static byte[] download(Backend backend, DeviceBuffer buffer, DeviceStream stream) {
    byte[] out = new byte[(int) buffer.size()];
    try (HostBlock staging = backend.transferMemory().pool().allocate(out.length)) {
      backend.copyDeviceToHost(buffer, 0, staging.address(), out.length, stream);
      stream.synchronize();
      MemoryUtil.copyFromMemory(staging.address(), out, 0, out.length);
    }
    return out;
  }

  /** The column as an Arrow vector from {@code allocator}; closes the column. */
  static FieldVector download(Backend backend, DeviceColumn column, BufferAllocator allocator, DeviceStream stream) {
    try (DeviceBatch batch = new DeviceBatch(List.of(column), column.rowCount());
        ArrowDownload download = ArrowDownload.begin(backend, batch, List.of("c"), allocator, stream)) {
      return download.complete().get(0);
    }
  }
}
