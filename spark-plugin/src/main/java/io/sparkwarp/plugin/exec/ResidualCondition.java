package io.sparkwarp.plugin.exec;

import io.sparkwarp.join.JoinCondition;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * A join's residual condition compiled for the device: one predicate program over just the columns it reads, the
 * left side's then the right side's, which the join evaluates for the pairs whose keys matched (a {@link
 * JoinCondition}). Compiled at planning, for the reasons it cannot run on the GPU, and again on the executor.
 */
public final class ResidualCondition {
  private final CompiledExpressions compiled;
  private final int[] leftColumns;
  private final int[] rightColumns;

  private ResidualCondition(CompiledExpressions compiled, int[] leftColumns, int[] rightColumns) {
    this.compiled = compiled;
    this.leftColumns = leftColumns;
    this.rightColumns = rightColumns;
  }

  /**
   * @param left the left child's output, whose positions are the left side's columns
   * @param right the right child's output
   */
  public static ResidualCondition compile(Expression condition, List<Attribute> left, List<Attribute> right,
      ExpressionSettings settings) {
    AttributeSet read = condition.references();
    List<Attribute> input = new ArrayList<>();
    int[] leftColumns = readColumns(read, left, input);
    int[] rightColumns = readColumns(read, right, input);
    return new ResidualCondition(ExpressionCompiler.compilePredicate(condition, input, settings), leftColumns,
        rightColumns);
  }

  /** The positions in {@code side} of the attributes {@code read} names, each also appended to {@code input}. */
  private static int[] readColumns(AttributeSet read, List<Attribute> side, List<Attribute> input) {
    List<Integer> columns = new ArrayList<>();
    for (int i = 0; i < side.size(); i++) {
      if (read.contains(side.get(i))) {
        columns.add(i);
        input.add(side.get(i));
      }
    }
    return columns.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Why the condition cannot run on the GPU; empty when it can. */
  public List<String> reasons() {
    return compiled.reasons();
  }

  /** The condition as the device join takes it. */
  JoinCondition condition() {
    return new JoinCondition(compiled.matchingProgram(), leftColumns, rightColumns);
  }

  /** Spark's own exception for an error the condition raised, with the failing expression's query context. */
  RuntimeException toSparkException(ExpressionErrorException e) {
    return compiled.toSparkException(e);
  }
}
