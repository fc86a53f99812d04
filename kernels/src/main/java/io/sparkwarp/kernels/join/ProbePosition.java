package io.sparkwarp.kernels.join;

/**
 * A place in a probe batch's candidate stream: row {@code row}, after its first {@code offset} candidates (bucket
 * entries, in table order). Chunks of a probe run from one position to the next.
 */
public record ProbePosition(int row, long offset) {
  public static final ProbePosition START = new ProbePosition(0, 0);

  public ProbePosition {
    if (row < 0 || offset < 0) throw new IllegalArgumentException("probe position (" + row + ", " + offset + ")");
  }

  /** Whether this is the end of a batch of {@code rows} rows. */
  public boolean isEnd(int rows) {
    return row >= rows;
  }
}
