package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A join's residual condition applied to a chunk of pairs (a probe's or a merge's): the columns the condition reads
 * are gathered for the pairs (only those; payload columns wait until a pair has passed, DogQC's post-projection),
 * the predicate is evaluated on the device, and the pairs for which it is true are compacted. Stateless between
 * chunks.
 */
final class ResidualFilter {
  /** The pairs batch's layout: stream row ids, build row ids, then the condition's result. */
  private static final int STREAM_ROWS = 0;
  private static final int BUILD_ROWS = 1;
  private static final ExprProgram KEEP_TRUE = ExprProgram.builder(List.of(DeviceType.INT, DeviceType.INT,
      DeviceType.BOOLEAN)).column(2).output().build();

  private final Backend backend;
  private final JoinCondition condition;
  private final JoinType.Side buildSide;
  private final DeviceStream stream;

  /**
   * @throws IllegalArgumentException when the condition's inputs are not of the types of the columns it names
   */
  ResidualFilter(Backend backend, JoinCondition condition, JoinType.Side buildSide, List<DeviceType> buildTypes,
      List<DeviceType> streamTypes, DeviceStream stream) {
    List<DeviceType> leftTypes = buildSide == JoinType.Side.LEFT ? buildTypes : streamTypes;
    List<DeviceType> rightTypes = buildSide == JoinType.Side.LEFT ? streamTypes : buildTypes;
    List<DeviceType> read = new ArrayList<>();
    for (int c : condition.leftColumns()) read.add(leftTypes.get(c));
    for (int c : condition.rightColumns()) read.add(rightTypes.get(c));
    if (!read.equals(condition.predicate().columnTypes())) {
      throw new IllegalArgumentException("a condition over " + condition.predicate().columnTypes() + " reads columns "
          + read);
    }
    this.backend = backend;
    this.condition = condition;
    this.buildSide = buildSide;
    this.stream = stream;
  }

  /**
   * The pairs (streamRows[i], buildRows[i]) for i in [0, count) that pass, as a new batch of two int32 columns:
   * stream row ids, then build row ids.
   *
   * @throws io.sparkwarp.kernels.expr.ExpressionErrorException when the condition raised an error for a pair (ANSI
   *     mode), as Spark would evaluating the same pair
   */
  DeviceBatch passing(DeviceBatch streamBatch, DeviceBatch build, DeviceBuffer streamRows, DeviceBuffer buildRows,
      int count) {
    try (DeviceColumn result = evaluate(streamBatch, build, streamRows, buildRows, count);
        DeviceBuffer allValid = backend.allocate((count + 7L) / 8, stream)) {
      backend.fill(allValid, 0, allValid.size(), (byte) 0xff, stream);
      // views over the chunk's row ids and the result: the batch is never closed itself, its buffers are others'
      DeviceBatch pairs = new DeviceBatch(List.of(rowIds(streamRows, allValid, count),
          rowIds(buildRows, allValid, count), result), count);
      return backend.expressions().filter(KEEP_TRUE, pairs, BUILD_ROWS + 1, stream);
    }
  }

  /** Stream row ids of a batch {@link #passing} returned (int32). */
  static DeviceBuffer streamRows(DeviceBatch passing) {
    return passing.column(STREAM_ROWS).data();
  }

  /** Build row ids of a batch {@link #passing} returned (int32). */
  static DeviceBuffer buildRows(DeviceBatch passing) {
    return passing.column(BUILD_ROWS).data();
  }

  /** The condition's result for every pair of the chunk: true, false or null. */
  private DeviceColumn evaluate(DeviceBatch streamBatch, DeviceBatch build, DeviceBuffer streamRows,
      DeviceBuffer buildRows, int count) {
    boolean buildLeft = buildSide == JoinType.Side.LEFT;
    List<DeviceColumn> inputs = new ArrayList<>();
    try (DeviceBatch left = gather(buildLeft ? build : streamBatch, condition.leftColumns(),
        buildLeft ? buildRows : streamRows, count);
        DeviceBatch right = gather(buildLeft ? streamBatch : build, condition.rightColumns(),
            buildLeft ? streamRows : buildRows, count)) {
      inputs.addAll(left.columns());
      inputs.addAll(right.columns());
      // a view of the two gathered batches, closed with them
      List<DeviceColumn> out = condition.predicate().project(backend, new DeviceBatch(inputs, count),
          stream);
      return out.get(0);
    }
  }

  /** Columns {@code columns} of {@code batch} at rows {@code rowIds[0, count)}, as a new batch. */
  private DeviceBatch gather(DeviceBatch batch, int[] columns, DeviceBuffer rowIds, int count) {
    if (columns.length == 0) return new DeviceBatch(List.of(), count);
    List<DeviceColumn> read = new ArrayList<>();
    for (int c : columns) read.add(batch.column(c));
    // a view of the caller's columns: never closed itself
    return backend.joins().gather(new DeviceBatch(read, batch.rowCount()), rowIds, count, stream);
  }

  /** An int32 column over {@code ids} (a view: closing it would free buffers that are not its own). */
  private static DeviceColumn rowIds(DeviceBuffer ids, DeviceBuffer allValid, int count) {
    return new DeviceColumn(DeviceType.INT, count, allValid, null, ids, 4L * count);
  }
}
