package io.sparkwarp.join;

/** The equi-join types the GPU runs, named as in SQL; the output columns are the left's, then the right's. */
public enum JoinType {
  INNER, LEFT_OUTER, RIGHT_OUTER, FULL_OUTER,
  /** left rows with a match; left columns only */
  LEFT_SEMI,
  /** left rows without a match (a null key never matches); left columns only */
  LEFT_ANTI;

  /** Whether the output holds the right side's columns. */
  public boolean outputsRight() {
    return this != LEFT_SEMI && this != LEFT_ANTI;
  }

  /** Whether rows of {@code side} without a match appear in the output (with nulls on the other side). */
  boolean keepsUnmatched(Side side) {
    return switch (this) {
      case FULL_OUTER -> true;
      case LEFT_OUTER -> side == Side.LEFT;
      case RIGHT_OUTER -> side == Side.RIGHT;
      default -> false;
    };
  }

  /** A side of the join. */
  public enum Side { LEFT, RIGHT }
}
