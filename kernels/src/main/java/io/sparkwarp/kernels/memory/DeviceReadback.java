package io.sparkwarp.kernels.memory;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import org.apache.arrow.memory.util.MemoryUtil;

/** Small read-backs of counts and statistics through transfer memory; each synchronises the stream. */
public final class DeviceReadback {
  private DeviceReadback() {}

  /** The first {@code n} int64 values of {@code src}. */
  public static long[] longs(Backend backend, DeviceBuffer src, int n, DeviceStream stream) {
    return longs(backend, src, 0, n, stream);
  }

  /** {@code n} int64 values of {@code src} from byte {@code offset}. */
  public static long[] longs(Backend backend, DeviceBuffer src, long offset, int n, DeviceStream stream) {
    long[] out = new long[n];
    try (HostBlock host = backend.transferMemory().pool().allocate(8L * n)) {
      backend.copyDeviceToHost(src, offset, host.address(), 8L * n, stream);
      stream.synchronize();
      for (int i = 0; i < n; i++) out[i] = MemoryUtil.getLong(host.address() + 8L * i);
    }
    return out;
  }

  /** {@code n} int32 values of {@code src} from byte {@code offset}, widened. */
  public static long[] ints(Backend backend, DeviceBuffer src, long offset, int n, DeviceStream stream) {
    long[] out = new long[n];
    try (HostBlock host = backend.transferMemory().pool().allocate(4L * n)) {
      backend.copyDeviceToHost(src, offset, host.address(), 4L * n, stream);
      stream.synchronize();
      for (int i = 0; i < n; i++) out[i] = MemoryUtil.getInt(host.address() + 4L * i);
    }
    return out;
  }
}
