package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceOutOfMemoryException;
import io.sparkwarp.kernels.memory.RawDeviceAllocator;
import jcuda.driver.CUmemAllocationHandleType;
import jcuda.driver.CUmemAllocationType;
import jcuda.driver.CUmemLocation;
import jcuda.driver.CUmemLocationType;
import jcuda.driver.CUmemPoolProps;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Stream-ordered device allocation from a CUDA memory pool of sparkwarp's own: allocations and frees are queued on
 * the task's stream, and freed memory is reused by later allocations without synchronising the device.
 */
final class CudaPoolAllocator implements RawDeviceAllocator, AutoCloseable {
  private final CudaContext context;
  private final PoolAttributes.Pool pool = new PoolAttributes.Pool();

  /** @param keepBytes freed bytes the pool keeps for reuse instead of returning them to the OS */
  CudaPoolAllocator(CudaContext context, long keepBytes) {
    this.context = context;
    CUmemPoolProps props = new CUmemPoolProps();
    props.allocType = CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE;
    props.location = new CUmemLocation(CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, context.device().ordinal());
    context.makeCurrent();
    context.check(JCudaDriver.cuMemPoolCreate(pool, props), "cuMemPoolCreate");
    PoolAttributes.setReleaseThreshold(pool, keepBytes, context);
  }

  @Override
  public long allocate(long bytes, DeviceStream stream) {
    Pointers.DeviceAddress ptr = new Pointers.DeviceAddress();
    context.makeCurrent();
    int result = JCudaDriver.cuMemAllocFromPoolAsync(ptr, bytes, pool, CudaStream.of(stream).handle());
    if (result == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
      throw new DeviceOutOfMemoryException("out of device memory on " + context.where() + ": " + bytes
          + " bytes could not be allocated");
    }
    context.check(result, "cuMemAllocFromPoolAsync(" + bytes + " bytes)");
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

  @Override
  public void close() {
    context.makeCurrent();
    context.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize");
    context.check(JCudaDriver.cuMemPoolDestroy(pool), "cuMemPoolDestroy");
  }
}
