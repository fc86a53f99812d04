package io.sparkwarp.kernels.aggregate;

/** What one aggregate computes over its group's rows (aggregate_spec.cuh AggOp: the same numbering). */
public enum AggregateOp {
  /** Rows of the group, count(*): LONG, never null. */
  COUNT_ALL,
  /** Rows whose input is not null: LONG, never null. */
  COUNT,
  /**
   * Exact sum of the non-null inputs (integers and decimals in 192 bits, floating inputs in double): null without
   * one. Into LONG it wraps around as Spark's legacy mode does; into a decimal it is null where it overflows the
   * precision. Either sets the aggregate's overflow flag.
   */
  SUM,
  /** Smallest non-null input: the input's type, null without one. Floats order as Spark orders them (NaN last). */
  MIN,
  /** Largest non-null input, like {@link #MIN}. */
  MAX
}
