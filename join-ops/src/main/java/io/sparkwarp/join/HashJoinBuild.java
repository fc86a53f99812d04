package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.join.HashTable;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.join.TableKind;

/**
 * The build side of a hash join: a unique-key table when the keys are unique (a probe row then has at most one
 * match), else a multi-match table; or the kind forced, for measurement. Keeps the table and its statistics; the
 * build keys must stay open while it is used.
 */
public final class HashJoinBuild implements AutoCloseable {
  /** Which table to build. */
  public enum Choice {
    /** Unique when no two rows have equal keys, else multi-match. */
    AUTO,
    /** Always multi-match (a unique key set then has buckets of one row). */
    MULTI
  }

  private final HashTable table;

  private HashJoinBuild(HashTable table) {
    this.table = table;
  }

  /** Builds the table for {@code keys}. */
  public static HashJoinBuild build(Backend backend, JoinKeys keys, Choice choice, DeviceStream stream) {
    HashJoinBuild unique = choice == Choice.AUTO ? unique(backend, keys, stream) : null;
    return unique != null ? unique : new HashJoinBuild(backend.joins().buildMulti(keys, stream));
  }

  /**
   * The unique-key table for {@code keys}, or null when two rows have equal keys (found early: the insert stops soon
   * after the first such pair, so asking costs little where the keys repeat).
   */
  public static HashJoinBuild unique(Backend backend, JoinKeys keys, DeviceStream stream) {
    HashTable unique = backend.joins().buildUnique(keys, stream);
    return unique == null ? null : new HashJoinBuild(unique);
  }

  public HashTable table() {
    return table;
  }

  public TableKind kind() {
    return table.kind();
  }

  /** Device bytes of the table. */
  public long deviceBytes() {
    return table.deviceBytes();
  }

  @Override
  public void close() {
    table.close();
  }

  @Override
  public String toString() {
    return table.toString();
  }
}
