package io.sparkwarp.kernels.peer;

import io.sparkwarp.kernels.BackendKind;

/** Peer copies between two simulated host devices (each its own memory accounting). */
class HostPeerCopyTest extends PeerCopyTests {
  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Override
  protected void assumeTwoDevices() {}
}
