package io.sparkwarp.kernels.cuda;

import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.JCudaDriver;

/** A point in a stream's work: for timing device work and for waiting on part of a stream. */
public final class CudaEvent implements AutoCloseable {
  private final CudaContext context;
  private final CUevent event = new CUevent();
  private final AtomicBoolean closed = new AtomicBoolean();

  /** @param timing whether the event records time (timing events cost a little more) */
  public CudaEvent(CudaContext context, boolean timing) {
    this.context = context;
    context.makeCurrent();
    context.check(JCudaDriver.cuEventCreate(event, timing ? CUevent_flags.CU_EVENT_DEFAULT
        : CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  }

  /** Marks the current end of {@code stream}'s work. */
  public void record(CudaStream stream) {
    context.makeCurrent();
    context.check(JCudaDriver.cuEventRecord(event, stream.handle()), "cuEventRecord");
  }

  /** Blocks until the recorded work has finished. */
  public void synchronize() {
    context.makeCurrent();
    context.check(JCudaDriver.cuEventSynchronize(event), "cuEventSynchronize");
  }

  /** Milliseconds between {@code start} and this event, both recorded and finished. */
  public float millisSince(CudaEvent start) {
    float[] ms = new float[1];
    context.makeCurrent();
    context.check(JCudaDriver.cuEventElapsedTime(ms, start.event, event), "cuEventElapsedTime");
    return ms[0];
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      context.makeCurrent();
      context.check(JCudaDriver.cuEventDestroy(event), "cuEventDestroy");
    }
  }
}
