package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Gathers rows of a device batch by a list of int32 row ids ({@code select.cu}): filter compaction and join
 * payloads. A row id of -1 gives a null row (validity 0, value 0, empty string). String columns take a length
 * gather, a scan into new offsets, one read-back of all their byte totals, and a byte copy.
 */
final class CudaRowGather {
  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel gatherFixed;
  private final CudaKernel gatherBits;
  private final CudaKernel gatherLengths;
  private final CudaKernel gatherBytes;

  CudaRowGather(CudaBackend backend, CudaModule module, CudaScan scan) {
    this.backend = backend;
    this.scan = scan;
    gatherFixed = module.kernel("sw_gather_fixed");
    gatherBits = module.kernel("sw_gather_bits");
    gatherLengths = module.kernel("sw_gather_lengths");
    gatherBytes = module.kernel("sw_gather_bytes");
  }

  /** Rows {@code rows[0, count)} of every column of {@code input} as a new batch. */
  DeviceBatch gather(DeviceBatch input, DeviceBuffer rows, int count, DeviceStream stream) {
    int columnCount = input.columnCount();
    DeviceBuffer[] offsets = new DeviceBuffer[columnCount];
    List<DeviceColumn> columns = new ArrayList<>();
    try (HostBlock totals = backend.transferMemory().pool().allocate(8L * Math.max(1, columnCount))) {
      // string columns first: new offsets from gathered lengths, and all byte totals read back at once
      boolean anyBytes = false;
      for (int i = 0; i < columnCount; i++) {
        DeviceColumn c = input.column(i);
        if (!c.type().isVariableWidth()) continue;
        anyBytes = true;
        offsets[i] = backend.allocate(4L * (count + 1), stream);
        if (count > 0) {
          gatherLengths.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(c.offsets())
              .pointer(rows).i64(count).pointer(offsets[i]));
        }
        scan.exclusiveSum(offsets[i], count, stream);
        backend.copyDeviceToHost(offsets[i], 4L * count, totals.address() + 8L * i, 4, stream);
      }
      if (anyBytes) stream.synchronize();
      for (int i = 0; i < columnCount; i++) {
        DeviceColumn c = input.column(i);
        if (c.type().isVariableWidth()) {
          columns.add(gatherBytes(c, rows, count, offsets[i], MemoryUtil.getInt(totals.address() + 8L * i), stream));
          offsets[i] = null;  // owned by the column now
        } else {
          columns.add(gatherFixed(c, rows, count, stream));
        }
      }
      return new DeviceBatch(columns, count);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      Closeables.closeAll(Arrays.asList(offsets));
      throw e;
    }
  }

  private DeviceColumn gatherFixed(DeviceColumn src, DeviceBuffer rows, int count, DeviceStream stream) {
    DeviceType type = src.type();
    DeviceColumn dst = DeviceColumn.allocate(backend, type, count, 0, stream);
    try {
      gatherBits(src.validity(), rows, count, dst.validity(), stream);
      if (type.isBitPacked()) {
        gatherBits(src.data(), rows, count, dst.data(), stream);
      } else if (count > 0) {
        gatherFixed.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(src.data())
            .i32(type.width()).pointer(rows).i64(count).pointer(dst.data()));
      }
      return dst;
    } catch (RuntimeException e) {
      dst.close();
      throw e;
    }
  }

  /** A string or binary column from its gathered offsets (which it takes over) and byte total. */
  private DeviceColumn gatherBytes(DeviceColumn src, DeviceBuffer rows, int count, DeviceBuffer offsets, int bytes,
      DeviceStream stream) {
    DeviceBuffer validity = null;
    DeviceBuffer data = null;
    try {
      validity = backend.allocate((count + 7) / 8, stream);
      data = backend.allocate(bytes, stream);
      gatherBits(src.validity(), rows, count, validity, stream);
      if (count > 0) {
        gatherBytes.launchGridStride(32L * count, CudaStream.of(stream), new KernelArgs().pointer(src.data())
            .pointer(src.offsets()).pointer(rows).i64(count).pointer(offsets).pointer(data));
      }
      return new DeviceColumn(src.type(), count, validity, offsets, data, bytes);
    } catch (RuntimeException e) {
      if (validity != null) validity.close();
      if (data != null) data.close();
      throw e;
    }
  }

  private void gatherBits(DeviceBuffer src, DeviceBuffer rows, int count, DeviceBuffer dst, DeviceStream stream) {
    if (count == 0) return;
    dst.checkRange(0, (count + 7) / 8);
    gatherBits.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(src).pointer(rows).i64(count)
        .pointer(dst));
  }
}
