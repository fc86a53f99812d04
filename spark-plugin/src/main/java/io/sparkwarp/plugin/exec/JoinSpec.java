package io.sparkwarp.plugin.exec;

import io.sparkwarp.join.JoinType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.catalyst.expressions.Expression;
import scala.collection.immutable.Seq;

/**
 * What a GPU hash join needs to know at run time, resolved at planning: the join type, the side that is built, and
 * its device keys as positions in Spark's key lists, each compared plainly or null-safely ({@code <=>}). Spark plans
 * {@code a <=> b} as two keys, {@code coalesce(a, default)} then {@code isnull(a)}; such a pair is one null-safe
 * device key, {@code a}, at the position of the coalesce. Positions rather than expressions keep the spec free of
 * expression ids, so equal joins over renamed inputs still compare equal.
 *
 * @param sparkKeys for each device key, its position in Spark's left and right key lists
 * @param nullSafe for each device key, whether null matches null
 */
public record JoinSpec(JoinType type, JoinType.Side buildSide, int[] sparkKeys, boolean[] nullSafe)
    implements Serializable {
  /** The device keys of one side, from that side's Spark keys. */
  public List<Expression> deviceKeys(Seq<Expression> sideSparkKeys) {
    List<Expression> keys = new ArrayList<>();
    for (int i = 0; i < sparkKeys.length; i++) {
      Expression key = sideSparkKeys.apply(sparkKeys[i]);
      keys.add(nullSafe[i] ? key.children().apply(0) : key);
    }
    return keys;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JoinSpec s && s.type == type && s.buildSide == buildSide
        && Arrays.equals(s.sparkKeys, sparkKeys) && Arrays.equals(s.nullSafe, nullSafe);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, buildSide, Arrays.hashCode(sparkKeys), Arrays.hashCode(nullSafe));
  }

  @Override
  public String toString() {
    return type + " build " + buildSide + " keys " + Arrays.toString(sparkKeys) + " null-safe "
        + Arrays.toString(nullSafe);
  }
}
