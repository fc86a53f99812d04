package io.sparkwarp.kernels.cuda;

import jcuda.driver.CUfunction;
import jcuda.driver.JCudaDriver;

/** One {@code extern "C"} entry point of the fatbin, launched on a stream. */
public final class CudaKernel {
  /** Threads per block of the grid-stride kernels. */
  public static final int BLOCK = 256;

  private final CudaContext context;
  private final CUfunction function;
  private final String name;

  CudaKernel(CudaContext context, CUfunction function, String name) {
    this.context = context;
    this.function = function;
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** Launches a 1-D grid. */
  public void launch(int blocks, int threadsPerBlock, int sharedBytes, CudaStream stream, KernelArgs args) {
    context.makeCurrent();
    context.check(JCudaDriver.cuLaunchKernel(function, blocks, 1, 1, threadsPerBlock, 1, 1, sharedBytes,
        stream.handle(), args.toKernelParams(), null), "cuLaunchKernel(" + name + ")");
  }

  /**
   * Launches a grid-stride kernel over {@code work} items: enough blocks to cover them, at most 32 per SM (more adds
   * no parallelism, only scheduling), at least one.
   */
  public void launchGridStride(long work, CudaStream stream, KernelArgs args) {
    long maxBlocks = 32L * context.device().multiprocessors();
    int blocks = (int) Math.max(1, Math.min(maxBlocks, (work + BLOCK - 1) / BLOCK));
    launch(blocks, BLOCK, 0, stream, args);
  }
}
