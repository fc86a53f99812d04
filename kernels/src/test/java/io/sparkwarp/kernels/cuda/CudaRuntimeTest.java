package io.sparkwarp.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.BackendUnavailableException;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.kernels.memory.DeviceOutOfMemoryException;
import io.sparkwarp.kernels.memory.HostBlock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Device discovery, limits, errors and pinned memory on a real GPU. */
@Tag("gpu")
class CudaRuntimeTest {
  @Test
  void discoversDevicesWithTheirProperties() {
    List<CudaDevice> devices = CudaDevice.list();
    assertFalse(devices.isEmpty());
    for (CudaDevice d : devices) {
      assertTrue(d.multiprocessors() > 0 && d.totalMemory() > 0 && !d.name().isEmpty(), d.toString());
      assertTrue(d.supported(), d + " is older than sm_80");
    }
  }

  @Test
  void aMissingDeviceIsAClearError() {
    int count = CudaDevice.list().size();
    BackendUnavailableException e = assertThrows(BackendUnavailableException.class,
        () -> CudaBackend.open(BackendOptions.defaults().withDevice(count)));
    assertTrue(e.getMessage().contains("GPU " + count + " was asked for"), e.getMessage());
  }

  @Test
  void theMemoryLimitIsEnforcedAndAccountedPerTask() {
    try (CudaBackend backend = CudaBackend.open(BackendOptions.defaults().withDeviceMemoryLimit(64L << 20));
        DeviceStream stream = backend.newStream()) {
      DeviceMemory memory = backend.deviceMemory();
      try (DeviceMemory.TaskScope task = memory.enterTask(7);
          DeviceBuffer a = backend.allocate(40L << 20, stream)) {
        assertEquals(40L << 20, memory.bytesInUse(7));
        DeviceOutOfMemoryException e = assertThrows(DeviceOutOfMemoryException.class,
            () -> backend.allocate(40L << 20, stream));
        assertTrue(e.getMessage().contains("limit"), e.getMessage());
        assertEquals(1, memory.liveBuffers().size(), "a failed allocation holds nothing");
      }
      assertEquals(0, memory.bytesInUse(7));
      assertEquals(List.of(), memory.liveBuffers());
    }
  }

  @Test
  void driverErrorsNameTheCallAndTheDevice() {
    try (CudaBackend backend = CudaBackend.open(BackendOptions.defaults());
        CudaStream stream = backend.newStream()) {
      CudaKernel kernel = backend.module().kernel("sw_fill_bits");
      // 4096 threads per block is past every GPU's limit of 1024
      CudaException e = assertThrows(CudaException.class,
          () -> kernel.launch(1, 4096, 0, stream, new KernelArgs().address(0).i64(0).i64(0).i32(0)));
      assertTrue(e.getMessage().contains("cuLaunchKernel(sw_fill_bits)"), e.getMessage());
      assertTrue(e.getMessage().contains(backend.context().device().name()), e.getMessage());
      CudaException missing = assertThrows(CudaException.class, () -> backend.module().kernel("no_such_kernel"));
      assertTrue(missing.getMessage().contains("no_such_kernel"), missing.getMessage());
    }
  }

  @Test
  void transferMemoryIsPinnedForTheDriver() {
    try (CudaBackend backend = CudaBackend.open(BackendOptions.defaults());
        HostBlock small = backend.transferMemory().pool().allocate(1000);
        HostBlock large = backend.transferMemory().pool().allocate(256L << 20)) {
      assertTrue(backend.transferMemory().pool().pinned());
      for (HostBlock block : new HostBlock[] {small, large}) {
        // the driver itself must see the block as host memory it can DMA: CU_MEMORYTYPE_HOST
        int[] type = new int[1];
        backend.context().check(jcuda.driver.JCudaDriver.cuPointerGetAttribute(jcuda.Pointer.to(type),
            jcuda.driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Pointers.device(block.address())),
            "cuPointerGetAttribute");
        assertEquals(jcuda.driver.CUmemorytype.CU_MEMORYTYPE_HOST, type[0]);
      }
    }
  }
}
