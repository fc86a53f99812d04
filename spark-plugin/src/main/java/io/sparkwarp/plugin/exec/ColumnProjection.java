package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Alias$;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;

/**
 * Columns over a side's device batches, one per expression: an expression that is a column of the batch is that
 * column, as it is (no copy); the others (arithmetic, casts, coalesce, ...) are computed for every batch by one
 * expression program over the batch's columns. Join keys and the inputs of aggregates are such columns. Compiled at
 * planning, for the reasons an expression cannot run on the GPU, and again on the executor.
 */
public final class ColumnProjection {
  /** For each expression, its column in the batches, or -1 where it is computed. */
  private final int[] columns;
  /** The computed expressions in order, or null when every expression is a column. */
  private final CompiledExpressions computed;

  private ColumnProjection(int[] columns, CompiledExpressions computed) {
    this.columns = columns;
    this.computed = computed;
  }

  /** @param input the batches' attributes: an attribute's position there is its column */
  public static ColumnProjection compile(List<Expression> expressions, List<Attribute> input,
      ExpressionSettings settings) {
    int[] columns = new int[expressions.size()];
    List<NamedExpression> toCompute = new ArrayList<>();
    for (int i = 0; i < expressions.size(); i++) {
      // a column of the batch passes through; anything else is computed (the compiler says why it cannot be)
      columns[i] = InputColumns.indexOf(input, expressions.get(i));
      if (columns[i] < 0) toCompute.add(alias(expressions.get(i), "c" + i));
    }
    return new ColumnProjection(columns, toCompute.isEmpty() ? null
        : ExpressionCompiler.compileProjection(toCompute, input, settings));
  }


  private static Alias alias(Expression e, String name) {
    Alias$ a = Alias$.MODULE$;
    return a.apply(e, name, a.apply$default$3(e, name), a.apply$default$4(e, name), a.apply$default$5(e, name),
        a.apply$default$6(e, name));
  }

  /** Why the computed expressions cannot run on the GPU; empty when they can (or there are none). */
  public List<String> reasons() {
    return computed == null ? List.of() : computed.reasons();
  }

  /**
   * The columns of {@code batch}: its own ones, and the computed ones as new columns the result owns.
   *
   * @throws RuntimeException Spark's own exception when computing a column raised an error (ANSI mode)
   */
  Projected of(Backend backend, DeviceBatch batch, DeviceStream stream) {
    List<DeviceColumn> made;
    try {
      made = computed == null ? List.of() : computed.matchingProgram().project(backend, batch, stream);
    } catch (ExpressionErrorException e) {
      throw computed.toSparkException(e);
    }
    List<DeviceColumn> out = new ArrayList<>();
    int next = 0;
    for (int column : columns) out.add(column >= 0 ? batch.column(column) : made.get(next++));
    return new Projected(out, made);
  }

  /**
   * The projected columns of one batch: the batch's own, which stay the batch's, and computed ones, which this owns
   * and frees on close.
   */
  record Projected(List<DeviceColumn> columns, List<DeviceColumn> computed) implements AutoCloseable {
    @Override
    public void close() {
      Closeables.closeAll(computed);
    }
  }
}
