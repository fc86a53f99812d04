package io.sparkwarp.join;

import io.sparkwarp.kernels.BackendKind;
import org.junit.jupiter.api.Tag;

/**
 * {@link DeviceJoinTest} on the CUDA backend: every join type and residual condition against the same nested-loop
 * oracle, through the probe, merge, sort, gather, expression and mark-rows kernels.
 */
@Tag("gpu")
class CudaDeviceJoinTest extends DeviceJoinTest {
  @Override
  protected BackendKind kind() {
    return BackendKind.CUDA;
  }
}
