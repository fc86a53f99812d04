package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.BackendKind;
import org.junit.jupiter.api.Tag;

@Tag("gpu")
class CudaBatchTransferTest extends BatchTransferTests {
  @Override
  protected BackendKind kind() {
    return BackendKind.CUDA;
  }
}
