package io.sparkwarp.kernels.cuda;

import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.JCudaDriver;

/** One {@code extern "C"} entry point of the fatbin, launched on a stream. */
public final class CudaKernel {
  /** Threads per block of the grid-stride kernels. */
  public static final int BLOCK = 256;

  private final CudaContext context;
  private final CUfunction function;
  private final String name;
  /** Dynamic shared memory this kernel's launches may use: 48 KiB unless raised by {@link #allowSharedMemory}. */
  private int sharedLimit = DEFAULT_SHARED_LIMIT;

  /** Dynamic shared memory a launch may use without opting in. */
  private static final int DEFAULT_SHARED_LIMIT = 48 * 1024;

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
   * Lets launches use {@code bytes} of dynamic shared memory (above 48 KiB the kernel must opt in).
   *
   * @throws CudaException when the device cannot give a block that much
   */
  public synchronized void allowSharedMemory(int bytes) {
    if (bytes <= sharedLimit) return;
    context.makeCurrent();
    context.check(JCudaDriver.cuFuncSetAttribute(function,
        CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
        "cuFuncSetAttribute(" + name + ", " + bytes + " bytes of shared memory)");
    sharedLimit = bytes;
  }

  /** Blocks of {@code threadsPerBlock} threads and {@code sharedBytes} of dynamic shared memory one SM runs at once. */
  public int residentBlocksPerSm(int threadsPerBlock, int sharedBytes) {
    int[] blocks = new int[1];
    context.makeCurrent();
    context.check(JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, threadsPerBlock,
        sharedBytes), "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + name + ")");
    return blocks[0];
  }

  /**
   * Launches a grid-stride kernel over {@code work} items: enough blocks to cover them, at most 32 per SM (more adds
   * no parallelism, only scheduling), at least one.
   */
  public void launchGridStride(long work, CudaStream stream, KernelArgs args) {
    launchGridStride(work, 0, stream, args);
  }

  /** {@link #launchGridStride(long, CudaStream, KernelArgs)} with {@code sharedBytes} of dynamic shared memory. */
  public void launchGridStride(long work, int sharedBytes, CudaStream stream, KernelArgs args) {
    long maxBlocks = 32L * context.device().multiprocessors();
    int blocks = (int) Math.max(1, Math.min(maxBlocks, (work + BLOCK - 1) / BLOCK));
    launch(blocks, BLOCK, sharedBytes, stream, args);
  }
}
