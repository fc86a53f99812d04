package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Alias$;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;

/**
 * One side's join keys over its device batches: a key that is a column of the side is that column, as it is; the
 * others (arithmetic, the casts Spark puts between key types, coalesce, ...) are computed for every batch by one
 * expression program over the side's columns. Compiled at planning, for the reasons a key cannot run on the GPU, and
 * again on the executor.
 */
public final class KeyProjection {
  /** For each key, its column in the side's batches, or -1 where it is computed. */
  private final int[] columns;
  private final boolean[] nullSafe;
  /** The computed keys in key order, or null when every key is a column. */
  private final CompiledExpressions computed;

  private KeyProjection(int[] columns, boolean[] nullSafe, CompiledExpressions computed) {
    this.columns = columns;
    this.nullSafe = nullSafe;
    this.computed = computed;
  }

  /**
   * @param keys the side's device keys ({@link JoinSpec#deviceKeys})
   * @param input the side's output: an attribute's position there is its column in the batches
   */
  public static KeyProjection compile(List<Expression> keys, boolean[] nullSafe, List<Attribute> input,
      ExpressionSettings settings) {
    int[] columns = new int[keys.size()];
    List<NamedExpression> toCompute = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      columns[i] = keys.get(i) instanceof AttributeReference a ? position(a, input) : -1;
      if (columns[i] < 0) toCompute.add(alias(keys.get(i), "key" + i));
    }
    return new KeyProjection(columns, nullSafe.clone(), toCompute.isEmpty() ? null
        : ExpressionCompiler.compileProjection(toCompute, input, settings));
  }

  private static int position(AttributeReference a, List<Attribute> input) {
    for (int i = 0; i < input.size(); i++) {
      if (input.get(i).exprId().equals(a.exprId())) return i;
    }
    return -1;  // not the side's own column: computed, and the compiler says why it cannot be
  }

  private static Alias alias(Expression e, String name) {
    Alias$ a = Alias$.MODULE$;
    return a.apply(e, name, a.apply$default$3(e, name), a.apply$default$4(e, name), a.apply$default$5(e, name),
        a.apply$default$6(e, name));
  }

  /** Why the computed keys cannot run on the GPU; empty when they can (or there are none). */
  public List<String> reasons() {
    return computed == null ? List.of() : computed.reasons();
  }

  /**
   * The keys of {@code batch}: its own columns, and the computed ones as new columns the result owns.
   *
   * @throws RuntimeException Spark's own exception when computing a key raised an error (ANSI mode)
   */
  ProjectedKeys of(Backend backend, DeviceBatch batch, DeviceStream stream) {
    List<DeviceColumn> made;
    try {
      made = computed == null ? List.of() : computed.matchingProgram().project(backend, batch, stream);
    } catch (ExpressionErrorException e) {
      throw computed.toSparkException(e);
    }
    try {
      List<DeviceColumn> keyColumns = new ArrayList<>();
      List<Boolean> safe = new ArrayList<>();
      int next = 0;
      for (int i = 0; i < columns.length; i++) {
        keyColumns.add(columns[i] >= 0 ? batch.column(columns[i]) : made.get(next++));
        safe.add(nullSafe[i]);
      }
      return new ProjectedKeys(new JoinKeys(keyColumns, safe), made);
    } catch (RuntimeException e) {
      Closeables.closeAll(made);
      throw e;
    }
  }
}
