package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.BackendKind;

class HostBatchTransferTest extends BatchTransferTests {
  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }
}
