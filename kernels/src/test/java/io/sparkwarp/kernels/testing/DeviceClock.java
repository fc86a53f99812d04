package io.sparkwarp.kernels.testing;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.cuda.CudaBackend;
import io.sparkwarp.kernels.cuda.CudaEvent;
import io.sparkwarp.kernels.cuda.CudaStream;

/**
 * Times device work issued on one stream, for benchmarks: CUDA events recorded around the work on the CUDA backend,
 * wall clock on the host backend (which runs work when it is issued).
 */
public interface DeviceClock extends AutoCloseable {
  /** Milliseconds {@code op} (which may synchronise the stream itself) takes, its device work finished. */
  double millis(Runnable op);

  @Override
  default void close() {}

  /** The clock for {@code backend}'s work on {@code stream}. */
  static DeviceClock on(Backend backend, DeviceStream stream) {
    if (backend instanceof CudaBackend cuda) return new Events(cuda, (CudaStream) stream);
    return op -> {
      stream.synchronize();
      long t = System.nanoTime();
      op.run();
      stream.synchronize();
      return (System.nanoTime() - t) / 1e6;
    };
  }

  /** Two timing events on the stream. */
  final class Events implements DeviceClock {
    private final CudaStream stream;
    private final CudaEvent start;
    private final CudaEvent stop;

    Events(CudaBackend backend, CudaStream stream) {
      this.stream = stream;
      this.start = new CudaEvent(backend.context(), true);
      try {
        this.stop = new CudaEvent(backend.context(), true);
      } catch (RuntimeException e) {
        start.close();
        throw e;
      }
    }

    @Override
    public double millis(Runnable op) {
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
}
