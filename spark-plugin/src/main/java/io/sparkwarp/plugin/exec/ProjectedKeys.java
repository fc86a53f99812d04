package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.join.JoinKeys;
import java.util.List;

/**
 * The join keys of one batch ({@link KeyProjection}): key columns that are the batch's own, which stay the batch's,
 * and computed ones, which this owns and frees on close.
 */
record ProjectedKeys(JoinKeys keys, List<DeviceColumn> computed) implements AutoCloseable {
  @Override
  public void close() {
    Closeables.closeAll(computed);
  }
}
