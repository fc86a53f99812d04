package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceOutOfMemoryException;
import io.sparkwarp.kernels.memory.RawDeviceAllocator;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Stream-ordered device allocation from the device's default CUDA memory pool (cuMemAllocAsync): allocations and
 * frees are queued on the task's stream, and freed memory is reused by later allocations without synchronising the
 * device. The pool keeps freed memory up to the device limit ({@link DefaultMemoryPool}).
 */
final class CudaPoolAllocator implements RawDeviceAllocator, AutoCloseable {
  private final CudaContext context;

  /** @param keepBytes freed bytes the pool keeps for reuse instead of returning them to the OS */
  CudaPoolAllocator(CudaContext context, long keepBytes) {
    this.context = context;
    context.makeCurrent();
    DefaultMemoryPool.keepFreed(context, keepBytes);
  }

  @Override
  public long allocate(long bytes, DeviceStream stream) {
    Pointers.DeviceAddress ptr = new Pointers.DeviceAddress();
    context.makeCurrent();
    int result = JCudaDriver.cuMemAllocAsync(ptr, bytes, CudaStream.of(stream).handle());
    if (result == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
      throw new DeviceOutOfMemoryException("out of device memory on " + context.where() + ": " + bytes
          + " bytes could not be allocated");
    }
    context.check(result, "cuMemAllocAsync(" + bytes + " bytes)");
    return ptr.address();
  }

  @Override
  public void free(long address, long bytes, DeviceStream stream) {
    context.makeCurrent();
    context.check(JCudaDriver.cuMemFreeAsync(Pointers.device(address), CudaStream.of(stream).handle()),
        "cuMemFreeAsync");
  }

  @Override
  public long deviceBytes() {
    return context.device().totalMemory();
  }

  /** Waits for queued frees, then returns the pool's unused memory to the OS. */
  @Override
  public void close() {
    context.makeCurrent();
    context.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize");
    DefaultMemoryPool.trim(context);
  }
}
