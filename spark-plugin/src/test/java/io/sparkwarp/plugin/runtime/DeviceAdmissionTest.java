package io.sparkwarp.plugin.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.host.HostBackend;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceMemory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Tasks are admitted to the device by memory: reserves and holdings against the limit, never a fixed count. */
class DeviceAdmissionTest {
  private static final long MIB = 1 << 20;

  @Test
  void aTaskWaitsUntilItsReserveFitsBesideWhatOthersHold() throws Exception {
    try (HostBackend backend = new HostBackend(BackendOptions.defaults().withDeviceMemoryLimit(10 * MIB));
        DeviceStream stream = backend.newStream()) {
      DeviceMemory memory = backend.deviceMemory();
      DeviceAdmission admission = new DeviceAdmission(memory, 4 * MIB, 0);
      admission.admit(1);
      admission.admit(2);  // 4 + 4 <= 10
      assertEquals(2, admission.admittedCount());
      CompletableFuture<Void> third = CompletableFuture.runAsync(() -> admission.admit(3));
      assertWaiting(third);  // 4 + 4 + 4 > 10
      admission.leave(2);
      third.get(5, TimeUnit.SECONDS);  // 4 + 4 <= 10
      // task 1 now holds more than its reserve: 7 + 4 (task 3) + 4 > 10
      DeviceBuffer held;
      try (DeviceMemory.TaskScope scope = memory.enterTask(1)) {
        held = memory.allocate(7 * MIB, stream);
      }
      CompletableFuture<Void> fourth = CompletableFuture.runAsync(() -> admission.admit(4));
      assertWaiting(fourth);
      admission.leave(3);
      assertWaiting(fourth);  // 7 + 4 > 10 still: memory, not the count, decides
      held.close();
      fourth.get(5, TimeUnit.SECONDS);  // task 1's holding is back to its reserve: 4 + 4 <= 10
      assertEquals(2, admission.admittedCount());
    }
  }

  /** A task spreading work onto this device waits a bounded time, then goes on without admission. */
  @Test
  void tryAdmitGivesUpAfterItsWaitAndAdmitsWhenItFits() {
    try (HostBackend backend = new HostBackend(BackendOptions.defaults().withDeviceMemoryLimit(10 * MIB))) {
      DeviceAdmission admission = new DeviceAdmission(backend.deviceMemory(), 4 * MIB, 0);
      admission.admit(1);
      assertTrue(admission.tryAdmit(2, 0));  // 4 + 4 <= 10
      assertFalse(admission.tryAdmit(3, 50));  // 4 + 4 + 4 > 10
      assertEquals(2, admission.admittedCount());
    }
  }

  @Test
  void theFirstTaskIsAdmittedWhateverItsReserveAndACapBoundsTheCount() throws Exception {
    try (HostBackend backend = new HostBackend(BackendOptions.defaults().withDeviceMemoryLimit(MIB))) {
      DeviceAdmission admission = new DeviceAdmission(backend.deviceMemory(), 64 * MIB, 0);
      admission.admit(1);
      assertEquals(1, admission.admittedCount());
    }
    try (HostBackend backend = new HostBackend(BackendOptions.defaults().withDeviceMemoryLimit(100 * MIB))) {
      DeviceAdmission capped = new DeviceAdmission(backend.deviceMemory(), MIB, 1);
      capped.admit(1);
      CompletableFuture<Void> second = CompletableFuture.runAsync(() -> capped.admit(2));
      assertWaiting(second);
      capped.leave(1);
      second.get(5, TimeUnit.SECONDS);
    }
  }

  private static void assertWaiting(CompletableFuture<Void> admission) throws InterruptedException {
    Thread.sleep(200);
    assertFalse(admission.isDone(), "admitted although it does not fit");
  }
}
