package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.join.HashJoinBuild;
import java.util.List;
import java.util.function.Function;

/** A join's build side on the device: its batch, its keys (computed ones owned), and the hash table over them. */
record JoinBuildSide(DeviceBatch batch, ProjectedKeys keys, HashJoinBuild table) {
  /** Builds the table over {@code batch}'s keys; takes the batch (closed if the build fails). */
  static JoinBuildSide of(Backend backend, DeviceBatch batch, KeyProjection keyProjection, DeviceStream stream) {
    return build(backend, batch, keyProjection, stream,
        keys -> HashJoinBuild.build(backend, keys, HashJoinBuild.Choice.AUTO, stream));
  }

  /**
   * The build side with a unique-key table over {@code batch}'s keys, or null when two rows have equal keys: then
   * the batch stays the caller's, else it is taken (closed too if the build fails).
   */
  static JoinBuildSide ifUnique(Backend backend, DeviceBatch batch, KeyProjection keyProjection,
      DeviceStream stream) {
    return build(backend, batch, keyProjection, stream, keys -> HashJoinBuild.unique(backend, keys, stream));
  }

  /** The side with the table {@code build} makes over its keys; null where it makes none (the batch the caller's). */
  private static JoinBuildSide build(Backend backend, DeviceBatch batch, KeyProjection keyProjection,
      DeviceStream stream, Function<JoinKeys, HashJoinBuild> build) {
    ProjectedKeys keys = null;
    try {
      keys = keyProjection.of(backend, batch, stream);
      HashJoinBuild table = build.apply(keys.keys());
      if (table == null) {
        keys.close();
        return null;
      }
      return new JoinBuildSide(batch, keys, table);
    } catch (RuntimeException e) {
      Closeables.closeAll(keys == null ? List.of(batch) : List.of(keys, batch));
      throw e;
    }
  }

  /** Device bytes of the batch, its computed keys and the table. */
  long deviceBytes() {
    return batch.deviceBytes() + keys.computed().stream().mapToLong(DeviceColumn::deviceBytes).sum()
        + table.deviceBytes();
  }

  void free() {
    Closeables.closeAll(List.of(table, keys, batch));
  }
}
