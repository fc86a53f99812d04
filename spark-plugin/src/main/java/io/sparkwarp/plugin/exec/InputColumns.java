package io.sparkwarp.plugin.exec;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;

/** Where an expression stands among an operator's input columns: by expression id, as Spark binds references. */
public final class InputColumns {
  private InputColumns() {}

  /** The position of {@code e} among {@code input} when it is one of those attributes, else -1. */
  public static int indexOf(List<Attribute> input, Expression e) {
    if (!(e instanceof Attribute a)) return -1;
    for (int i = 0; i < input.size(); i++) {
      if (input.get(i).exprId().equals(a.exprId())) return i;
    }
    return -1;
  }
}
