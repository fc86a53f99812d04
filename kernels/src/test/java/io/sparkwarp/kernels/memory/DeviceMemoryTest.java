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
      DeviceBuffer first = allocateFor(7, 600, backend, stream);
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

  /**
   * A task that ran out of memory waits for another task to free some and learns when it did; alone on the device,
   * or beside a task that itself waits, it learns at once that waiting cannot help.
   */
  @Test
  void aTaskAwaitsMemoryFreedByAnotherTask() throws Exception {
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults().withDeviceMemoryLimit(1000));
        DeviceStream stream = backend.newStream()) {
      DeviceMemory memory = backend.deviceMemory();
      try (DeviceMemory.TaskScope t = memory.enterTask(7)) {
        assertFalse(memory.awaitFreeByOtherTask(60_000), "alone on the device: nothing to wait for");
      }
      DeviceBuffer held = allocateFor(7, 600, backend, stream);
      CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
        try (DeviceMemory.TaskScope t = memory.enterTask(8)) {
          return memory.awaitFreeByOtherTask(60_000);
        }
      });
      Thread.sleep(100);
      assertFalse(waiter.isDone(), "returned before task 7 freed anything");
      try (DeviceMemory.TaskScope t = memory.enterTask(7)) {
        // task 8 waits and holds nothing: task 7 must not wait on it
        assertFalse(memory.awaitFreeByOtherTask(60_000));
      }
      held.close();
      assertTrue(waiter.get(5, TimeUnit.SECONDS), "task 8 saw the memory task 7 freed");
    }
  }

  @Test
  void injectedFailuresFailOnlyTheirThreadsMatchingAllocations() {
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults());
        DeviceStream stream = backend.newStream()) {
      try (DeviceMemory.TaskScope f = DeviceMemory.injectFailures(bytes -> bytes > 100)) {
        backend.allocate(100, stream).close();
        DeviceOutOfMemoryException e = assertThrows(DeviceOutOfMemoryException.class,
            () -> backend.allocate(101, stream));
        assertTrue(e.getMessage().contains("asked for 101 bytes"), e.getMessage());
      }
      backend.allocate(101, stream).close();
      assertEquals(0, backend.deviceMemory().bytesInUse());
    }
  }

  /** {@code bytes} allocated on behalf of task {@code task}. */
  private static DeviceBuffer allocateFor(long task, long bytes, Backend backend, DeviceStream stream) {
    try (DeviceMemory.TaskScope t = backend.deviceMemory().enterTask(task)) {
      return backend.allocate(bytes, stream);
    }
  }
}
