package io.sparkwarp.kernels.cuda;

import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Direct access of one GPU to another's memory, for peer copies over NVLink or PCIe. Two switches make it: the
 * context's peer access ({@code cuCtxEnablePeerAccess}, for ordinary allocations) and the default memory pools'
 * access ({@code cuMemPoolSetAccess}: stream-ordered allocations, all of sparkwarp's, ignore the context's), each
 * way, so either device's copy engines may move the bytes. Without it, copies are still correct, staged by the
 * driver through host memory.
 */
final class PeerAccess {
  private PeerAccess() {}

  /**
   * Enables access between the two devices when the hardware allows it and returns whether it does. Idempotent:
   * access another backend of the process enabled already is taken as it is.
   */
  static boolean enable(CudaContext from, CudaContext to) {
    if (from == to) return true;
    int[] can = new int[1];
    int[] back = new int[1];
    from.check(JCudaDriver.cuDeviceCanAccessPeer(can, from.deviceHandle(), to.deviceHandle()), "cuDeviceCanAccessPeer");
    to.check(JCudaDriver.cuDeviceCanAccessPeer(back, to.deviceHandle(), from.deviceHandle()), "cuDeviceCanAccessPeer");
    if (can[0] == 0 || back[0] == 0) return false;
    enableContext(from, to);
    enableContext(to, from);
    DefaultMemoryPool.grantAccess(from, to);
    DefaultMemoryPool.grantAccess(to, from);
    return true;
  }

  /** Lets {@code accessing}'s context reach {@code owner}'s allocations (the accessing context must be current). */
  private static void enableContext(CudaContext accessing, CudaContext owner) {
    accessing.makeCurrent();
    int result = JCudaDriver.cuCtxEnablePeerAccess(owner.handle(), 0);
    if (result != CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
      accessing.check(result, "cuCtxEnablePeerAccess(" + owner.where() + ")");
    }
  }
}
