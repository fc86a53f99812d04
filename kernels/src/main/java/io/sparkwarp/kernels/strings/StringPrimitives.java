package io.sparkwarp.kernels.strings;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;

/**
 * The device side of string predicates (building the pivoted layouts and running compiled matchers over a string
 * column) and of substrings. CUDA: {@code strings.cu}, {@code substring.cu}. Methods leave their inputs open and
 * return objects the caller owns.
 */
public interface StringPrimitives {
  /**
   * The STRING or BINARY column {@code strings} in {@code layout} (PIVOTED or SELF_PIVOTED), built on the device.
   *
   * @throws IllegalArgumentException for PLAIN or a fixed-width column
   */
  PivotedStrings pivot(DeviceColumn strings, StringLayout layout, DeviceStream stream);

  /**
   * Whether each row of {@code strings} matches {@code matcher}: a BOOLEAN column of the same row count, null
   * exactly where the string is null. Reads the plain column when {@code pivoted} is null, else {@code pivoted}
   * (which must have been built from {@code strings}). With {@code refill} a lane whose string is decided takes
   * the next undecided row of its warp's range (Lane Refill), otherwise it idles until the warp's rows are done;
   * SELF_PIVOTED runs a warp per row, where refill means that a warp whose row is decided takes the next row from
   * a shared queue instead of a fixed share. Synchronises the stream to read back the lane counters.
   *
   * @throws IllegalArgumentException for a DfaMatcher over SELF_PIVOTED strings, a fixed-width column, or (CUDA) a
   *     SegmentMatcher whose tables (5 bytes per segment byte, plus the anchors) exceed a block's shared memory
   */
  MatchResult match(DeviceColumn strings, PivotedStrings pivoted, StringMatcher matcher, boolean refill,
      DeviceStream stream);

  /**
   * Spark's {@code substring(str, pos, len)} of every row of the STRING column {@code strings}, as defined by
   * {@link Utf8Substring}: a new STRING column of the same row count, null exactly where the input is null.
   * Synchronises the stream (to size the new bytes).
   *
   * @throws IllegalArgumentException for a column that is not STRING
   */
  DeviceColumn substring(DeviceColumn strings, int pos, int len, DeviceStream stream);
}
