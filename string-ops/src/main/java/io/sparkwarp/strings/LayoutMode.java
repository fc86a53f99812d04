package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.StringLayout;

/** How the string layout of a batch is chosen: by {@link LayoutPolicy}'s rule, or forced (for measurement). */
public enum LayoutMode {
  AUTO(null), PLAIN(StringLayout.PLAIN), PIVOTED(StringLayout.PIVOTED), SELF_PIVOTED(StringLayout.SELF_PIVOTED);

  private final StringLayout forced;

  LayoutMode(StringLayout forced) {
    this.forced = forced;
  }

  /** The layout this mode forces, or null for AUTO. */
  public StringLayout forced() {
    return forced;
  }
}
