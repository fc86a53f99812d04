package io.sparkwarp.join;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.JoinKeys;
import java.util.function.Consumer;

/**
 * A hash join whose build side is ready, joining stream batches as they arrive: on one device ({@link
 * DeviceHashJoin}) or spread over several ({@link SpreadHashJoin}). One task calls it.
 */
public interface StreamedJoin extends AutoCloseable {
  /**
   * Joins one stream batch, handing each output batch to {@code out}, which owns it. The stream batch and its keys
   * stay the caller's.
   *
   * @throws io.sparkwarp.kernels.expr.ExpressionErrorException when the residual condition raised an error
   */
  void join(DeviceBatch streamBatch, JoinKeys streamKeys, Consumer<DeviceBatch> out);

  /** After the last stream batch: the build rows that decide output on their own. */
  void finish(Consumer<DeviceBatch> out);

  /** What the probes did so far. */
  ProbeMetrics metrics();

  @Override
  void close();
}
