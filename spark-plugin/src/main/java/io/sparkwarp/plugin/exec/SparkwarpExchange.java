package io.sparkwarp.plugin.exec;

import java.util.Arrays;
import org.apache.spark.sql.execution.exchange.Exchange;

/**
 * What a Java exchange owes Spark's tree machinery, as {@link SparkwarpExec} for the other operators (an exchange
 * extends Spark's Exchange instead): the Product view of its constructor arguments, which Spark's makeCopy and
 * canonicalisation rebuild it from, and value equality like Scala's case classes.
 */
abstract class SparkwarpExchange extends Exchange {
  /** The constructor's arguments, in order. */
  protected abstract Object[] constructorArgs();

  @Override
  public int productArity() {
    return constructorArgs().length;
  }

  @Override
  public Object productElement(int n) {
    return constructorArgs()[n];
  }

  @Override
  public boolean canEqual(Object that) {
    return that != null && that.getClass() == getClass();
  }

  @Override
  public boolean equals(Object o) {
    return o == this || (canEqual(o) && Arrays.equals(constructorArgs(), ((SparkwarpExchange) o).constructorArgs()));
  }

  @Override
  public int hashCode() {
    return 31 * getClass().hashCode() + Arrays.hashCode(constructorArgs());
  }
}
