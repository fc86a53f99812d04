package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.DeviceStream;

/** The host backend runs every operation when it is issued, so its streams have nothing to wait for. */
final class HostStream implements DeviceStream {
  @Override
  public void synchronize() {}

  @Override
  public void close() {}
}
