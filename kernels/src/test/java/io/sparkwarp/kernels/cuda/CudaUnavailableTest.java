package io.sparkwarp.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.BackendUnavailableException;
import io.sparkwarp.kernels.Backends;
import java.io.File;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** On a machine without a GPU (CI), asking for CUDA is a clear error, never a crash. */
class CudaUnavailableTest {
  @Test
  void openingCudaWithoutAGpuSaysWhy() {
    Assumptions.assumeFalse(new File("/dev/nvidiactl").exists(), "this machine has an NVIDIA GPU");
    for (BackendKind kind : new BackendKind[] {BackendKind.CUDA, BackendKind.AUTO}) {
      BackendUnavailableException e = assertThrows(BackendUnavailableException.class,
          () -> Backends.open(kind, BackendOptions.defaults()));
      assertTrue(e.getMessage().contains("CUDA") || e.getMessage().contains("GPU"), e.getMessage());
    }
  }
}
