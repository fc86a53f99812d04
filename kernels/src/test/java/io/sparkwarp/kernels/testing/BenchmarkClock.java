package io.sparkwarp.kernels.testing;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.cuda.CudaBackend;
import io.sparkwarp.kernels.cuda.CudaEvent;
import io.sparkwarp.kernels.cuda.CudaStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.Arrays;

/**
 * Times device work on a benchmark's stream: CUDA events recorded around the operation on a GPU, wall time on the
 * host backend (which runs work when it is issued). Also the benchmarks' shared rule for a figure: warm up once,
 * then the median of several runs.
 */
public abstract class BenchmarkClock implements AutoCloseable {
  /** The clock for {@code stream} of {@code backend}. */
  public static BenchmarkClock of(Backend backend, DeviceStream stream) {
    return backend instanceof CudaBackend cuda ? new Events(cuda, (CudaStream) stream) : new Wall(stream);
  }

  /** Milliseconds {@code op} (which may synchronise the stream itself) takes, its device work finished. */
  public abstract double time(Runnable op);

  /** One untimed warm-up run, then the median of {@code repeat} timed runs, in milliseconds. */
  public double median(int repeat, Runnable op) {
    time(op);
    double[] ms = new double[repeat];
    for (int i = 0; i < repeat; i++) ms[i] = time(op);
    Arrays.sort(ms);
    return ms[repeat / 2];
  }

  /**
   * GB/s of a device-to-device copy of {@code bytes} (counting bytes read and written): the device-memory ceiling
   * measured in the same run, median of {@code repeat}.
   */
  public double copyGbs(Backend backend, DeviceStream stream, long bytes, int repeat) {
    try (DeviceBuffer a = backend.allocate(bytes, stream); DeviceBuffer b = backend.allocate(bytes, stream)) {
      backend.fill(a, 0, bytes, (byte) 1, stream);
      return 2.0 * bytes / median(repeat, () -> backend.copyDeviceToDevice(a, 0, b, 0, bytes, stream)) / 1e6;
    }
  }

  @Override
  public void close() {}

  private static final class Events extends BenchmarkClock {
    private final CudaStream stream;
    private final CudaEvent start;
    private final CudaEvent stop;

    Events(CudaBackend backend, CudaStream stream) {
      this.stream = stream;
      this.start = new CudaEvent(backend.context(), true);
      CudaEvent s;
      try {
        s = new CudaEvent(backend.context(), true);
      } catch (RuntimeException e) {
        start.close();
        throw e;
      }
      this.stop = s;
    }

    @Override
    public double time(Runnable op) {
      stream.synchronize();
      start.record(stream);
      op.run();
      stop.record(stream);
      stop.synchronize();
      return stop.millisSince(start);
    }

    @Override
    public void close() {
      start.close();
      stop.close();
    }
  }

  private static final class Wall extends BenchmarkClock {
    private final DeviceStream stream;

    Wall(DeviceStream stream) {
      this.stream = stream;
    }

    @Override
    public double time(Runnable op) {
      stream.synchronize();
      long t = System.nanoTime();
      op.run();
      stream.synchronize();
      return (System.nanoTime() - t) / 1e6;
    }
  }
}
