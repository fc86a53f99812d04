package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.join.JoinKeys;
import java.util.List;

/**
 * One device's share of a {@link SpreadHashJoin}'s build side: the build rows of one hash part with their keys
 * ({@link SpreadLayout}), on that device, the table over the keys and the device join probing it. Used by one thread at a
 * time (its device's); owns all three.
 */
final class SpreadPart implements AutoCloseable {
  private final DeviceBatch rowsAndKeys;
  private final HashJoinBuild table;
  private final DeviceHashJoin join;

  /**
   * Builds the part's table and join over {@code rowsAndKeys}, which it takes over (closed with it, also when this
   * fails).
   *
   * @param layout where in {@code rowsAndKeys} the build rows and the keys are
   */
  SpreadPart(Backend backend, DeviceBatch rowsAndKeys, SpreadLayout layout, List<Boolean> nullSafe, JoinType type,
      JoinType.Side buildSide, JoinCondition condition, List<DeviceType> streamTypes, int chunkPairs,
      DeviceStream stream) {
    this.rowsAndKeys = rowsAndKeys;
    HashJoinBuild built = null;
    try {
      JoinKeys keys = layout.keys(rowsAndKeys, nullSafe);
      built = HashJoinBuild.build(backend, keys, HashJoinBuild.Choice.AUTO, stream);
      this.join = new DeviceHashJoin(backend, layout.rows(rowsAndKeys), keys, built, type, buildSide, condition,
          streamTypes, chunkPairs, null, stream);
      this.table = built;
    } catch (RuntimeException e) {
      if (built != null) built.close();
      rowsAndKeys.close();
      throw e;
    }
  }

  DeviceBatch rowsAndKeys() {
    return rowsAndKeys;
  }

  DeviceHashJoin join() {
    return join;
  }

  @Override
  public void close() {
    try {
      join.close();
      table.close();
    } finally {
      rowsAndKeys.close();
    }
  }
}
