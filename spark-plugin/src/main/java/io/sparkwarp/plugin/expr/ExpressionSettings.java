package io.sparkwarp.plugin.expr;

import java.util.List;
import java.util.function.Predicate;

/**
 * What the expression compiler needs from the session.
 *
 * @param ansi spark.sql.ansi.enabled (expressions carry their own eval mode; this decides only where Spark reads
 *     the session flag at run time)
 * @param timeZone the session time zone (spark.sql.session.timeZone)
 * @param familyEnabled whether the expression family of {@link #FAMILIES} may run on the GPU, from
 *     {@code spark.warp.expr.<family>.enabled}
 */
public record ExpressionSettings(boolean ansi, String timeZone, Predicate<String> familyEnabled) {
  /** The expression families, each with its switch {@code spark.warp.expr.<family>.enabled}. */
  public static final List<String> FAMILIES = List.of("comparison", "logic", "null", "in", "arithmetic", "cast",
      "conditional", "like", "regex", "datetime", "substring");

  /** The configuration key of {@code family}'s switch. */
  public static String enabledKey(String family) {
    return "spark.warp.expr." + family + ".enabled";
  }
}
