package io.sparkwarp.it.harness;

import java.util.List;

/**
 * The join types the GPU joins take, as SQL writes them between a left relation {@code l} and a right relation
 * {@code r}; each knows which side a hash join builds and which columns it returns.
 */
public enum JoinKind {
  INNER("JOIN"),
  LEFT_OUTER("LEFT JOIN"),
  RIGHT_OUTER("RIGHT JOIN"),
  FULL_OUTER("FULL JOIN"),
  LEFT_SEMI("LEFT SEMI JOIN"),
  LEFT_ANTI("LEFT ANTI JOIN");

  public static final String LEFT = "l";
  public static final String RIGHT = "r";

  private final String sql;

  JoinKind(String sql) {
    this.sql = sql;
  }

  /** The keywords between the two relations. */
  public String sql() {
    return sql;
  }

  /** The relation a hash join builds: the right one, except where only the left can be (right outer). */
  public String buildSide() {
    return this == RIGHT_OUTER ? LEFT : RIGHT;
  }

  /**
   * The operators Spark can plan it as (every {@link JoinStrategy}), except that a broadcast hash join cannot
   * preserve both sides.
   */
  public List<JoinStrategy> strategies() {
    return this == FULL_OUTER ? List.of(JoinStrategy.SHUFFLED_HASH, JoinStrategy.SORT_MERGE, JoinStrategy.MERGE_PATH)
        : List.of(JoinStrategy.values());
  }

  /**
   * The {@code n}-th of its {@link #strategies}, cyclically: tests that cannot afford every operator for every case
   * turn through them, so that each join type still meets each operator.
   */
  public JoinStrategy strategy(int n) {
    return strategies().get(n % strategies().size());
  }

  /** The select list: {@code leftColumns}, then {@code rightColumns} unless a semi or anti join hides them. */
  public String select(String leftColumns, String rightColumns) {
    return this == LEFT_SEMI || this == LEFT_ANTI ? leftColumns : leftColumns + ", " + rightColumns;
  }
}
