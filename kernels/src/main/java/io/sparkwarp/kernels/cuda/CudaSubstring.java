package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.strings.StringArguments;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Substrings of a string column ({@code substring.cu}): each row's byte range, the lengths scanned into the new
 * offsets in place, one read-back of the byte total (the only synchronisation), and one byte copy.
 */
final class CudaSubstring {
  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel ranges;
  private final CudaKernel copy;

  CudaSubstring(CudaBackend backend, CudaModule module, CudaScan scan) {
    this.backend = backend;
    this.scan = scan;
    ranges = module.kernel("sw_substring_ranges");
    copy = module.kernel("sw_substring_copy");
  }

  /** See {@link io.sparkwarp.kernels.strings.StringPrimitives#substring}. */
  DeviceColumn substring(DeviceColumn strings, int pos, int len, DeviceStream stream) {
    StringArguments.checkSubstring(strings);
    int rows = strings.rowCount();
    CudaStream s = CudaStream.of(stream);
    DeviceBuffer offsets = null;
    DeviceBuffer validity = null;
    DeviceBuffer data = null;
    try (DeviceBuffer begins = backend.allocate(4L * rows, stream);
        HostBlock total = backend.transferMemory().pool().allocate(8)) {
      offsets = backend.allocate(4L * (rows + 1), stream);
      try {
        if (rows > 0) {
          // a warp per 32 rows
          ranges.launchGridStride(32 * ((rows + 31L) / 32), s, new KernelArgs().pointer(strings.validity())
              .pointer(strings.offsets()).pointer(strings.data()).i64(rows).i32(pos).i32(len).pointer(begins)
              .pointer(offsets));
        }
        scan.exclusiveSum(offsets, rows, stream);
        backend.copyDeviceToHost(offsets, 4L * rows, total.address(), 4, stream);
      } finally {
        stream.synchronize();  // the total is read next, and the pinned block must be idle before it is reused
      }
      int bytes = MemoryUtil.getInt(total.address());
      validity = backend.allocate((rows + 7) / 8, stream);
      backend.copyDeviceToDevice(strings.validity(), 0, validity, 0, (rows + 7) / 8, stream);
      data = backend.allocate(bytes, stream);
      if (bytes > 0) {
        copy.launchGridStride(32L * rows, s, new KernelArgs().pointer(strings.data()).pointer(begins)
            .pointer(offsets).i64(rows).pointer(data));
      }
      return new DeviceColumn(DeviceType.STRING, rows, validity, offsets, data, bytes);
    } catch (RuntimeException e) {
      if (offsets != null) offsets.close();
      if (validity != null) validity.close();
      if (data != null) data.close();
      throw e;
    }
  }
}
