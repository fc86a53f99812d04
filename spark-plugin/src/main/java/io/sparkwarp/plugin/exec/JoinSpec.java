package io.sparkwarp.plugin.exec;

import io.sparkwarp.join.JoinType;
import java.io.Serializable;

/**
 * What a GPU hash join needs to know at run time, resolved at planning: the join type, the side that is built, and
 * for each key the column ordinal on each side and whether it compares null-safely ({@code <=>}).
 */
public record JoinSpec(JoinType type, JoinType.Side buildSide, int[] leftKeys, int[] rightKeys, boolean[] nullSafe)
    implements Serializable {
  public int[] buildKeys() {
    return buildSide == JoinType.Side.LEFT ? leftKeys : rightKeys;
  }

  public int[] streamKeys() {
    return buildSide == JoinType.Side.LEFT ? rightKeys : leftKeys;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JoinSpec s && s.type == type && s.buildSide == buildSide
        && java.util.Arrays.equals(s.leftKeys, leftKeys) && java.util.Arrays.equals(s.rightKeys, rightKeys)
        && java.util.Arrays.equals(s.nullSafe, nullSafe);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(type, buildSide, java.util.Arrays.hashCode(leftKeys),
        java.util.Arrays.hashCode(rightKeys), java.util.Arrays.hashCode(nullSafe));
  }

  @Override
  public String toString() {
    return type + " build " + buildSide + " keys " + java.util.Arrays.toString(leftKeys) + "="
        + java.util.Arrays.toString(rightKeys) + (nullSafe.length > 0 ? " null-safe " + java.util.Arrays.toString(
            nullSafe) : "");
  }
}
