package io.sparkwarp.join;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.cuda.CudaDevice;
import org.junit.jupiter.api.Tag;

/** The spread join over every visible GPU, up to 3, by peer copies; needs two GPUs. */
@Tag("gpu")
class CudaSpreadHashJoinTest extends SpreadHashJoinTests {
  @Override
  protected BackendKind kind() {
    return BackendKind.CUDA;
  }

  @Override
  protected int deviceCount() {
    int visible = CudaDevice.list().size();
    assumeTrue(visible >= 2, "the spread join needs 2 GPUs and this machine shows " + visible + ": skipped");
    return Math.min(3, visible);
  }
}
