package io.sparkwarp.strings;

import java.io.Serializable;

/**
 * How string predicates run: the layout choice and whether lanes refill (from {@code spark.warp.strings.layout}
 * and {@code spark.warp.strings.refill}).
 */
public record MatchOptions(LayoutMode layout, boolean refill) implements Serializable {
  public static final MatchOptions DEFAULT = new MatchOptions(LayoutMode.AUTO, true);
}
