package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * One side's join keys over its device batches: the keys as a {@link ColumnProjection} (a key that is a column of
 * the side is that column; the others are computed by one expression program), with Spark's null-safe flags.
 */
public final class KeyProjection {
  private final ColumnProjection columns;
  private final boolean[] nullSafe;

  private KeyProjection(ColumnProjection columns, boolean[] nullSafe) {
    this.columns = columns;
    this.nullSafe = nullSafe;
  }

  /**
   * @param keys the side's device keys ({@link JoinSpec#deviceKeys})
   * @param input the side's output: an attribute's position there is its column in the batches
   */
  public static KeyProjection compile(List<Expression> keys, boolean[] nullSafe, List<Attribute> input,
      ExpressionSettings settings) {
    return new KeyProjection(ColumnProjection.compile(keys, input, settings), nullSafe.clone());
  }

  /** Why the computed keys cannot run on the GPU; empty when they can (or there are none). */
  public List<String> reasons() {
    return columns.reasons();
  }

  /**
   * The keys of {@code batch}: its own columns, and the computed ones as new columns the result owns.
   *
   * @throws RuntimeException Spark's own exception when computing a key raised an error (ANSI mode)
   */
  ProjectedKeys of(Backend backend, DeviceBatch batch, DeviceStream stream) {
    ColumnProjection.Projected projected = columns.of(backend, batch, stream);
    try {
      List<Boolean> safe = new ArrayList<>();
      for (boolean s : nullSafe) safe.add(s);
      return new ProjectedKeys(new JoinKeys(projected.columns(), safe), projected.computed());
    } catch (RuntimeException e) {
      projected.close();
      throw e;
    }
  }
}
