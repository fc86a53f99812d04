package io.sparkwarp.kernels.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeviceMemoryTest {
  @Test
  void limitsPaddingTasksAndLeaksAreAccounted() {
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults().withDeviceMemoryLimit(1000));
        DeviceStream stream = backend.newStream()) {
      DeviceMemory memory = backend.deviceMemory();
      DeviceBuffer outside = backend.allocate(0, stream);
      assertEquals(8, memory.bytesInUse(), "zero bytes still get a padded, valid allocation");
      DeviceBuffer a;
      try (DeviceMemory.TaskScope t = memory.enterTask(42)) {
        a = backend.allocate(13, stream);
        assertEquals(16, memory.bytesInUse(42));
        DeviceOutOfMemoryException e = assertThrows(DeviceOutOfMemoryException.class,
            () -> backend.allocate(1000, stream));
        assertTrue(e.getMessage().contains("asked for 1000 bytes with 24 of 1000"), e.getMessage());
      }
      assertEquals(List.of(outside, a).size(), memory.liveBuffers().size());
      assertEquals(16, memory.finishTask(42), "the task's unfreed bytes are reported as its leak");
      a.close();
      a.close();  // idempotent
      outside.close();
      assertEquals(0, memory.bytesInUse());
      assertEquals(List.of(), memory.liveBuffers());
      assertThrows(IllegalStateException.class, a::address);
      assertThrows(IndexOutOfBoundsException.class, () -> outside.checkRange(0, 1));
    }
  }

  /**
   * Over the limit, an allocation waits while another task could free memory, and gets it when that task frees; a
   * task that could only wait on a waiting task fails at once instead of joining a circle.
   */
  @Test
  void anAllocationOverTheLimitWaitsForAnotherTaskToFree() throws Exception {
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults().withDeviceMemoryLimit(1000));
        DeviceStream stream = backend.newStream()) {
      DeviceMemory memory = backend.deviceMemory();
      DeviceBuffer first;
      try (DeviceMemory.TaskScope t = memory.enterTask(7)) {
        first = backend.allocate(600, stream);
      }
      CompletableFuture<DeviceBuffer> second = CompletableFuture.supplyAsync(() -> {
        try (DeviceMemory.TaskScope t = memory.enterTask(8)) {
          DeviceBuffer held = backend.allocate(300, stream);
          held.close();
          return backend.allocate(600, stream);  // 600 + 600 > 1000: waits for task 7
        }
      });
      Thread.sleep(200);
      assertFalse(second.isDone(), "allocated over the limit");
      try (DeviceMemory.TaskScope t = memory.enterTask(7)) {
        // task 8 holds nothing and waits: task 7's own growth cannot be helped by waiting
        assertThrows(DeviceOutOfMemoryException.class, () -> backend.allocate(500, stream));
      }
      first.close();
      second.get(5, TimeUnit.SECONDS).close();
      assertEquals(0, memory.bytesInUse());
    }
  }
}
