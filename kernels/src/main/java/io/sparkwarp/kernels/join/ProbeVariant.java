package io.sparkwarp.kernels.join;

/** How a probe kernel spreads its work over a warp's lanes (DogQC's divergence techniques). */
public enum ProbeVariant {
  /** One lane per probe row, each looping over its own candidates. */
  NAIVE,
  /**
   * Push-down Parallelism: the warp spreads its rows' candidates over its lanes, one wide or several packed ranges
   * per round, so skewed buckets are consumed by evenly loaded lanes with coalesced reads. Multi-match tables only.
   */
  PUSH_DOWN,
  /**
   * Lane Refill: rows the probe-side selection drops leave their lanes idle; a per-warp buffer refills them, so the
   * probe runs with at least {@link #REFILL_THRESHOLD} active lanes.
   */
  REFILL;

  /** The fewest active lanes of 32 a refilled probe runs with (DogQC's 0.9 threshold). */
  public static final int REFILL_THRESHOLD = 28;
}
