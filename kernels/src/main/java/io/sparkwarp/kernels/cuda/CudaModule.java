package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.BackendUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * The fatbin built from {@code src/main/cuda}, loaded into one context. Loaded with cuModuleLoadData: JCuda's
 * cuModuleLoadFatBinary fails with CUDA_ERROR_INVALID_HANDLE on current drivers.
 */
public final class CudaModule implements AutoCloseable {
  /** Classpath location of the fatbin the build packs. */
  public static final String FATBIN_RESOURCE = "/io/sparkwarp/kernels/sparkwarp.fatbin";

  private final CudaContext context;
  private final CUmodule module = new CUmodule();
  private final Map<String, CudaKernel> kernels = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  public CudaModule(CudaContext context) {
    this.context = context;
    byte[] image = readFatbin();
    context.makeCurrent();
    context.check(JCudaDriver.cuModuleLoadData(module, image), "cuModuleLoadData(sparkwarp.fatbin)");
  }

  /**
   * Fails with a clear error when this jar was built without kernels.
   *
   * @throws BackendUnavailableException saying how to get a jar with kernels
   */
  public static void checkFatbinPresent() {
    readFatbin();
  }

  /** The fatbin's bytes, or a clear error for a jar built without kernels. */
  static byte[] readFatbin() {
    try (InputStream in = CudaModule.class.getResourceAsStream(FATBIN_RESOURCE)) {
      if (in == null) {
        throw new BackendUnavailableException("this sparkwarp build carries no CUDA kernels (it was built with "
            + "-Dsparkwarp.skipKernels=true or without nvcc); rebuild with the CUDA Toolkit's nvcc on the PATH, or "
            + "set spark.warp.backend=host");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new BackendUnavailableException("cannot read " + FATBIN_RESOURCE + ": " + e, e);
    }
  }

  /** The entry point {@code name}, looked up once. */
  public CudaKernel kernel(String name) {
    return kernels.computeIfAbsent(name, n -> {
      CUfunction function = new CUfunction();
      context.makeCurrent();
      context.check(JCudaDriver.cuModuleGetFunction(function, module, n), "cuModuleGetFunction(" + n + ")");
      return new CudaKernel(context, function, n);
    });
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      context.makeCurrent();
      context.check(JCudaDriver.cuModuleUnload(module), "cuModuleUnload");
    }
  }
}
