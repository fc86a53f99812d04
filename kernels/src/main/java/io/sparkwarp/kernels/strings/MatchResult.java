package io.sparkwarp.kernels.strings;

import io.sparkwarp.kernels.batch.DeviceColumn;

/**
 * What a match launch produced: a BOOLEAN column (null where the string is null) that the caller owns, the layout
 * it read, and the lane utilisation the kernel measured (lanes holding an unfinished string, summed over the warps'
 * loop iterations; both zero on the host backend, which has no lanes).
 */
public record MatchResult(DeviceColumn matches, StringLayout layout, boolean refill, long activeLanes,
    long warpIterations) implements AutoCloseable {
  /** Average share of a warp's 32 lanes that worked, or NaN when nothing was measured. */
  public double laneUtilisation() {
    return warpIterations == 0 ? Double.NaN : activeLanes / (32.0 * warpIterations);
  }

  @Override
  public void close() {
    matches.close();
  }
}
