package io.sparkwarp.kernels.peer;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.cuda.CudaDevice;
import org.junit.jupiter.api.Tag;

/** Peer copies between GPUs 0 and 1 (cuMemcpyPeerAsync); needs two GPUs. */
@Tag("gpu")
class CudaPeerCopyTest extends PeerCopyTests {
  @Override
  protected BackendKind kind() {
    return BackendKind.CUDA;
  }

  @Override
  protected void assumeTwoDevices() {
    int visible = CudaDevice.list().size();
    assumeTrue(visible >= 2, "peer copies need 2 GPUs and this machine shows " + visible + ": skipped");
  }
}
