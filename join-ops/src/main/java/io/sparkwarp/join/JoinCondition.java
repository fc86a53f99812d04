package io.sparkwarp.join;

import io.sparkwarp.strings.MatchingProgram;

/**
 * A hash join's residual (non-equi) condition: a pair of rows whose keys are equal is a match only where the
 * condition is true (null counts as false), so it decides the pairs an inner join emits, which rows an outer join
 * null-extends and which rows a semi or anti join keeps.
 *
 * @param predicate a program (with the string predicates it reads) with one computed boolean output, over the
 *     columns {@code leftColumns} of the left side and then {@code rightColumns} of the right side, in that order:
 *     only the columns it reads are gathered for the pairs
 * @param leftColumns ordinals of left-side columns, the program's first inputs
 * @param rightColumns ordinals of right-side columns, its remaining inputs
 */
public record JoinCondition(MatchingProgram predicate, int[] leftColumns, int[] rightColumns) {
  public JoinCondition {
    predicate.program().checkPredicate();
    leftColumns = leftColumns.clone();
    rightColumns = rightColumns.clone();
    if (predicate.columnTypes().size() != leftColumns.length + rightColumns.length) {
      throw new IllegalArgumentException("a condition over " + predicate.columnTypes().size() + " columns reads "
          + leftColumns.length + " left and " + rightColumns.length + " right columns");
    }
  }

  /** The ordinals the program reads on {@code side}. */
  int[] columns(JoinType.Side side) {
    return side == JoinType.Side.LEFT ? leftColumns : rightColumns;
  }
}
