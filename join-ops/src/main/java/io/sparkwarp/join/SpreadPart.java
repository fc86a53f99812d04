package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.join.JoinKeys;
import java.util.List;

/**
 * One device's share of a {@link SpreadHashJoin}'s build side: the build rows of one hash part with their key
 * columns appended, on that device, the table over the keys and the device join probing it. Used by one thread at a
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
   * @param columns how many of {@code rowsAndKeys}' columns are build rows; the rest are the keys
   */
  SpreadPart(Backend backend, DeviceBatch rowsAndKeys, int columns, List<Boolean> nullSafe, JoinType type,
      JoinType.Side buildSide, JoinCondition condition, List<DeviceType> streamTypes, int chunkPairs,
      DeviceStream stream) {
    this.rowsAndKeys = rowsAndKeys;
    HashJoinBuild built = null;
    try {
      JoinKeys keys = keys(rowsAndKeys, columns, nullSafe);
      built = HashJoinBuild.build(backend, keys, HashJoinBuild.Choice.AUTO, stream);
      this.join = new DeviceHashJoin(backend, rows(rowsAndKeys, columns), keys, built, type, buildSide, condition,
          streamTypes, chunkPairs, null, stream);
      this.table = built;
    } catch (RuntimeException e) {
      if (built != null) built.close();
      rowsAndKeys.close();
      throw e;
    }
  }

  /** The first {@code columns} columns of {@code rowsAndKeys}: a view sharing them, never closed itself. */
  static DeviceBatch rows(DeviceBatch rowsAndKeys, int columns) {
    return new DeviceBatch(rowsAndKeys.columns().subList(0, columns), rowsAndKeys.rowCount());
  }

  /** The columns after the first {@code columns} of {@code rowsAndKeys}, as join keys. */
  static JoinKeys keys(DeviceBatch rowsAndKeys, int columns, List<Boolean> nullSafe) {
    List<DeviceColumn> all = rowsAndKeys.columns();
    return new JoinKeys(all.subList(columns, all.size()), nullSafe);
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
