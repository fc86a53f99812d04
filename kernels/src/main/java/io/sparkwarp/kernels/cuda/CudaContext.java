package io.sparkwarp.kernels.cuda;

import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * The primary context of one device, shared with every other CUDA user in the process (as the runtime API does).
 * Driver calls need it current on the calling thread: {@link #makeCurrent()} before each batch of calls, cheap when
 * it already is.
 */
public final class CudaContext implements AutoCloseable {
  private static final ThreadLocal<CudaContext> CURRENT = new ThreadLocal<>();

  private final CudaDevice device;
  private final CUdevice handle = new CUdevice();
  private final CUcontext context = new CUcontext();
  private final String where;
  private final AtomicBoolean closed = new AtomicBoolean();

  public CudaContext(CudaDevice device) {
    this.device = device;
    this.where = device.toString();
    Cuda.check(JCudaDriver.cuDeviceGet(handle, device.ordinal()), "cuDeviceGet", where);
    Cuda.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, handle), "cuDevicePrimaryCtxRetain", where);
    makeCurrent();
  }

  public CudaDevice device() {
    return device;
  }

  /** The device, as error messages name it. */
  public String where() {
    return where;
  }

  /** The driver's handle of the context, for calls that name two contexts (peer copies). */
  CUcontext handle() {
    return context;
  }

  /** The driver's handle of the device. */
  CUdevice deviceHandle() {
    return handle;
  }

  /** A {@code CUdevice_attribute} of the device. */
  public int deviceAttribute(int attribute) {
    int[] value = new int[1];
    check(JCudaDriver.cuDeviceGetAttribute(value, attribute, handle), "cuDeviceGetAttribute");
    return value[0];
  }

  /** Makes this context current on the calling thread. */
  public void makeCurrent() {
    if (CURRENT.get() != this) {
      check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
      CURRENT.set(this);
    }
  }

  /** Checks a driver result, naming this device in the error. */
  public void check(int result, String call) {
    Cuda.check(result, call, where);
  }

  /** Releases this process's hold on the primary context. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      if (CURRENT.get() == this) CURRENT.remove();
      check(JCudaDriver.cuDevicePrimaryCtxRelease(handle), "cuDevicePrimaryCtxRelease");
    }
  }
}
