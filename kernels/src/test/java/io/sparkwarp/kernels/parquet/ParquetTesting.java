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
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;

/** Shared by the Parquet primitive tests: random columns with repeats, and the scan's steps on one backend. */
final class ParquetTesting {
  /** The stored forms that convert on the way: unsigned 32-bit integers, millisecond timestamps (both kinds). */
  static final List<ColumnSpec> CONVERTING = List.of(new ColumnSpec(PhysicalType.UINT32, 0, DeviceType.LONG),
      new ColumnSpec(PhysicalType.INT64_MILLIS, 0, DeviceType.timestamp("UTC")),
      new ColumnSpec(PhysicalType.INT64_MILLIS, 0, DeviceType.timestamp(null)));

  private ParquetTesting() {}

  /** Divides every 64-bit value by 2^12: milliseconds that convert to microseconds without overflow. */
  static void shrink(FieldVector values) {
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
