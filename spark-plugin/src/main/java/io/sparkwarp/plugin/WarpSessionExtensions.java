package io.sparkwarp.plugin;

import io.sparkwarp.plugin.rewrite.JudgeBroadcasts;
import io.sparkwarp.plugin.rewrite.WarpColumnarRule;
import org.apache.spark.sql.SparkSessionExtensions;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * The {@code spark.sql.extensions} entry: injects sparkwarp's columnar rule, and the rule that judges broadcasts
 * before adaptive execution makes query stages, into every session. The driver plugin
 * adds it to {@code spark.sql.extensions} by itself; naming it there by hand works as well.
 */
public final class WarpSessionExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectColumnar(session -> new WarpColumnarRule());
    // adaptive execution shows the columnar rule one query stage at a time: a broadcast's readers are judged first
    extensions.injectQueryStagePrepRule(session -> new JudgeBroadcasts());
    return BoxedUnit.UNIT;
  }
}
