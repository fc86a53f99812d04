package io.sparkwarp.kernels.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Runs a test class against both backends at once, to compare each CUDA kernel with its host reference on the same
 * fresh random input; after each test, neither backend may hold device memory.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class CudaVsHostTestBase {
  protected final Random rnd = new Random();
  protected Backend cuda;
  protected Backend host;
  /** Ordinary Arrow memory for inputs and downloads. */
  protected RootAllocator allocator;

  @BeforeAll
  void openBackends() {
    cuda = Backends.open(BackendKind.CUDA, BackendOptions.defaults());
    host = Backends.open(BackendKind.HOST, BackendOptions.defaults());
    allocator = new RootAllocator();
  }

  @AfterAll
  void closeBackends() {
    allocator.close();
    cuda.close();
    host.close();
  }

  @AfterEach
  void nothingLeaked() {
    assertEquals(List.of(), cuda.deviceMemory().liveBuffers(), "cuda device memory left allocated");
    assertEquals(List.of(), host.deviceMemory().liveBuffers(), "host device memory left allocated");
  }
}
