package io.sparkwarp.join;

import io.sparkwarp.kernels.BackendKind;

/** The spread join over three simulated host devices, each with its own memory accounting. */
class SpreadHashJoinTest extends SpreadHashJoinTests {
  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Override
  protected int deviceCount() {
    return 3;
  }
}
