package io.sparkwarp.join;

import io.sparkwarp.kernels.join.ProbeVariant;

/**
 * What a probe of one batch did: its rows, chunks, matched pairs, the variant, and the lanes its kernels kept busy.
 *
 * @param activeLanes active lanes summed over warp iterations (0 on the host backend)
 * @param warpIterations warp iterations of the probe loops (0 on the host backend)
 */
public record ProbeMetrics(long rows, long chunks, long matches, ProbeVariant variant, long activeLanes,
    long warpIterations) {
  /** Nothing probed yet. */
  public static final ProbeMetrics NONE = new ProbeMetrics(0, 0, 0, null, 0, 0);

  /** These and {@code other} summed; the variant is the latest one used. */
  public ProbeMetrics plus(ProbeMetrics other) {
    return new ProbeMetrics(rows + other.rows, chunks + other.chunks, matches + other.matches,
        other.variant != null ? other.variant : variant, activeLanes + other.activeLanes,
        warpIterations + other.warpIterations);
  }

  /** Average share of a warp's 32 lanes doing useful work, or NaN where nothing was measured. */
  public double laneUtilisation() {
    return warpIterations == 0 ? Double.NaN : activeLanes / (32.0 * warpIterations);
  }
}
