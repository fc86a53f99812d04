package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.BackendUnavailableException;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/** Loads the CUDA driver once per JVM and turns driver return codes into {@link CudaException}s. */
public final class Cuda {
  private static volatile boolean initialized;

  private Cuda() {}

  /**
   * Loads JCuda's driver binding and calls cuInit.
   *
   * @throws BackendUnavailableException when the driver library is missing or no usable driver answers
   */
  public static synchronized void init() {
    if (initialized) return;
    int result;
    try {
      JCudaDriver.setExceptionsEnabled(false);
      result = JCudaDriver.cuInit(0);
    } catch (UnsatisfiedLinkError | NoClassDefFoundError | ExceptionInInitializerError e) {
      throw new BackendUnavailableException("the CUDA driver could not be loaded (is an NVIDIA driver for CUDA 12 or "
          + "newer installed, with libcuda.so.1 on the library path?): " + e, e);
    }
    if (result != CUresult.CUDA_SUCCESS) {
      throw new BackendUnavailableException("cuInit failed: " + CUresult.stringFor(result)
          + (result == CUresult.CUDA_ERROR_NO_DEVICE ? " (no NVIDIA GPU is visible to this process)" : ""));
    }
    initialized = true;
  }

  /** Throws a {@link CudaException} naming {@code call} and {@code device} unless {@code result} is success. */
  public static void check(int result, String call, String device) {
    if (result != CUresult.CUDA_SUCCESS) throw new CudaException(call, device, result);
  }
}
