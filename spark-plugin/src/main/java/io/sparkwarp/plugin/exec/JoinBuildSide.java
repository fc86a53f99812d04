package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.join.HashJoinBuild;
import java.util.List;

/** A join's build side on the device: its batch, the key columns in it, and the hash table over them. */
record JoinBuildSide(DeviceBatch batch, JoinKeys keys, HashJoinBuild table) {
  /** Builds the table over {@code batch}'s key columns; takes the batch (closed if the build fails). */
  static JoinBuildSide of(Backend backend, DeviceBatch batch, JoinSpec spec, DeviceStream stream) {
    try {
      JoinKeys keys = JoinKeyColumns.of(batch, spec.buildKeys(), spec.nullSafe());
      return new JoinBuildSide(batch, keys, HashJoinBuild.build(backend, keys, HashJoinBuild.Choice.AUTO, stream));
    } catch (RuntimeException e) {
      batch.close();
      throw e;
    }
  }

  void free() {
    Closeables.closeAll(List.of(table, batch));
  }
}
