package io.sparkwarp.kernels.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * Runs a test class against one backend, opened once per class. Each test gets a fresh stream, an Arrow allocator
 * over the backend's transfer memory and a plain (pageable) one; afterwards it fails if the test left device
 * memory allocated or Arrow buffers open.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class BackendTestBase {
  protected Backend backend;
  protected DeviceStream stream;
  /** Arrow memory from the backend's transfer pool (pinned with CUDA). */
  protected BufferAllocator transfer;
  /** Ordinary Arrow memory, as Spark allocates it. */
  protected BufferAllocator pageable;

  /** The backend this class tests. */
  protected abstract BackendKind kind();

  @BeforeAll
  void openBackend() {
    backend = Backends.open(kind(), BackendOptions.defaults());
  }

  @BeforeEach
  void openPerTest() {
    stream = backend.newStream();
    transfer = backend.transferMemory().arrowAllocator().newChildAllocator("test", 0, Long.MAX_VALUE);
    pageable = new RootAllocator();
  }

  @AfterEach
  void checkNothingLeaked() {
    stream.close();
    assertEquals(List.of(), backend.deviceMemory().liveBuffers(), "device memory left allocated");
    transfer.close();
    pageable.close();
  }

  @AfterAll
  void closeBackend() {
    backend.close();
  }
}
