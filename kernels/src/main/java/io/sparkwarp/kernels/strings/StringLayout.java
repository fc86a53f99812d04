package io.sparkwarp.kernels.strings;

/**
 * How the matcher kernels read a string column (Sitaridi, ch. 5).
 *
 * <ul>
 *   <li>{@link #PLAIN}: the Arrow offsets and bytes themselves, one lane per row.
 *   <li>{@link #PIVOTED}: for each group of 32 consecutive rows (one warp) the strings interleaved in 8-byte pieces
 *       (piece k of all 32 rows, then piece k + 1), padded with zeros to the group's longest string; one lane per
 *       row, so a warp reading piece k of its rows reads 256 contiguous bytes.
 *   <li>{@link #SELF_PIVOTED}: each long string split into 32 near-equal segments stored pivoted (piece k of every
 *       segment, then piece k + 1); one warp per row, lane l scanning segment l. Segment matchers only.
 * </ul>
 */
public enum StringLayout {
  PLAIN, PIVOTED, SELF_PIVOTED
}
