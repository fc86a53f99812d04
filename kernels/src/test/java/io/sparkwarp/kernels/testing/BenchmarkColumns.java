package io.sparkwarp.kernels.testing;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.HostBlock;
import java.util.SplittableRandom;
import org.apache.arrow.memory.util.MemoryUtil;

/** Device-resident columns of seeded random 8-byte values, all valid: the inputs of the kernel benchmarks. */
public final class BenchmarkColumns {
  private BenchmarkColumns() {}

  /**
   * A LONG, DECIMAL (up to 18 digits) or DOUBLE column of {@code rows} values: longs and unscaled decimals uniform in
   * [0, distinct) where distinct > 0, else any long; doubles in [0, 1).
   */
  public static DeviceColumn random(Backend backend, DeviceType type, int rows, long distinct, long seed,
      DeviceStream stream) {
    DeviceColumn column = DeviceColumn.allocate(backend, type, rows, 0, stream);
    SplittableRandom random = new SplittableRandom(seed);
    long bytes = 8L * rows;
    try (HostBlock staging = backend.transferMemory().pool().allocate(bytes)) {
      for (long i = 0; i < rows; i++) {
        long v = type.kind() == DeviceType.Kind.DOUBLE ? Double.doubleToLongBits(random.nextDouble())
            : distinct > 0 ? random.nextLong(distinct) : random.nextLong();
        MemoryUtil.putLong(staging.address() + 8 * i, v);
      }
      backend.copyHostToDevice(staging.address(), column.data(), 0, bytes, stream);
      backend.fill(column.validity(), 0, column.validity().size(), (byte) 0xFF, stream);
      stream.synchronize();
    }
    return column;
  }
}
