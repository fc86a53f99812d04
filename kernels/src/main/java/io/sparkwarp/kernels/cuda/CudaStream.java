package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/** A non-blocking CUDA stream: it does not wait for the legacy default stream, so tasks overlap. */
public final class CudaStream implements DeviceStream {
  private final CudaContext context;
  private final CUstream stream = new CUstream();
  private final AtomicBoolean closed = new AtomicBoolean();

  public CudaStream(CudaContext context) {
    this.context = context;
    context.makeCurrent();
    context.check(JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }

  /** The CUDA stream behind a backend-neutral one; only CUDA streams reach the CUDA backend. */
  static CudaStream of(DeviceStream stream) {
    if (stream instanceof CudaStream cuda) return cuda;
    throw new IllegalArgumentException("not a CUDA stream: " + stream);
  }

  CUstream handle() {
    if (closed.get()) throw new IllegalStateException("CUDA stream used after close");
    return stream;
  }

  @Override
  public void synchronize() {
    context.makeCurrent();
    context.check(JCudaDriver.cuStreamSynchronize(handle()), "cuStreamSynchronize");
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      context.makeCurrent();
      context.check(JCudaDriver.cuStreamSynchronize(stream), "cuStreamSynchronize");
      context.check(JCudaDriver.cuStreamDestroy(stream), "cuStreamDestroy");
    }
  }
}
