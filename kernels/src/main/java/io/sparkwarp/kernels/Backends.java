package io.sparkwarp.kernels;

import io.sparkwarp.kernels.cuda.CudaBackend;
import io.sparkwarp.kernels.host.HostBackend;
import java.util.List;

/** Opens the backend a configuration asks for. */
public final class Backends {
  private Backends() {}

  /**
   * Opens a backend; the caller owns and closes it. {@code AUTO} opens CUDA and, like {@code CUDA}, throws when it is
   * not available: deciding what to do without a GPU (the plugin leaves plans alone) is the caller's.
   *
   * @throws BackendUnavailableException with the reason CUDA cannot start
   */
  public static Backend open(BackendKind kind, BackendOptions options) {
    return switch (kind) {
      case HOST -> new HostBackend(options);
      case CUDA, AUTO -> CudaBackend.open(options);
    };
  }

  /**
   * Whether every device's kernels may read every other's memory ({@link Backend#readsPeerMemory}), as a kernel or
   * copy on one reading another's batch needs; true for one device. Enables CUDA peer access between them.
   */
  public static boolean readEachOther(List<Backend> devices) {
    boolean all = true;
    for (Backend device : devices) {
      for (Backend peer : devices) all &= device == peer || device.readsPeerMemory(peer);
    }
    return all;
  }
}
