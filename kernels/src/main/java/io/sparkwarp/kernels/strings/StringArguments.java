package io.sparkwarp.kernels.strings;

import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;

/** The argument checks every {@link StringPrimitives} implementation makes, so both backends refuse the same calls. */
public final class StringArguments {
  private StringArguments() {}

  /**
   * @throws IllegalArgumentException for PLAIN or a fixed-width column
   */
  public static void checkPivot(DeviceColumn strings, StringLayout layout) {
    requireVariableWidth(strings);
    if (layout == StringLayout.PLAIN) throw new IllegalArgumentException("the plain layout is the column itself");
  }

  /**
   * @throws IllegalArgumentException for a fixed-width column, a layout of another row count, or a DfaMatcher over
   *     SELF_PIVOTED strings (an automaton reads its string in order, which a warp spread over 32 segments cannot)
   */
  public static void checkMatch(DeviceColumn strings, PivotedStrings pivoted, StringMatcher matcher) {
    requireVariableWidth(strings);
    if (pivoted == null) return;
    if (pivoted.rowCount() != strings.rowCount()) {
      throw new IllegalArgumentException("a " + pivoted.layout() + " layout of " + pivoted.rowCount()
          + " rows does not belong to a column of " + strings.rowCount() + " rows");
    }
    if (pivoted.layout() == StringLayout.SELF_PIVOTED && matcher instanceof DfaMatcher) {
      throw new IllegalArgumentException("self-pivoted strings run segment matchers only, not " + matcher.describe());
    }
  }

  /**
   * @throws IllegalArgumentException for a column that is not STRING (a BINARY substring counts bytes, not
   *     characters)
   */
  public static void checkSubstring(DeviceColumn strings) {
    if (strings.type().kind() != DeviceType.Kind.STRING) {
      throw new IllegalArgumentException("substring takes a STRING column, not " + strings.type());
    }
  }

  private static void requireVariableWidth(DeviceColumn strings) {
    if (!strings.type().isVariableWidth()) {
      throw new IllegalArgumentException("string primitives take STRING or BINARY columns, not " + strings.type());
    }
  }
}
