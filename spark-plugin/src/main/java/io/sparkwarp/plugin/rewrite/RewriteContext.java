package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.config.FaultInjection;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import io.sparkwarp.strings.MatchOptions;
import org.apache.spark.sql.internal.SQLConf;

/**
 * What tagging and conversion need to know about the session, read once per rewrite, and the internal errors the
 * rewrite met.
 */
public record RewriteContext(WarpConf conf, ExpressionSettings expressions, MatchOptions strings, int batchRows,
    long batchBytes, FaultInjection faults, InternalErrors internalErrors) {
  public static RewriteContext of(SQLConf sqlConf) {
    WarpConf conf = WarpConf.of(sqlConf);
    ExpressionSettings expressions = new ExpressionSettings(sqlConf.ansiEnabled(), sqlConf.sessionLocalTimeZone(),
        conf::exprFamilyEnabled);
    MatchOptions strings = new MatchOptions(conf.get(WarpConf.STRING_LAYOUT), conf.get(WarpConf.STRING_REFILL));
    return new RewriteContext(conf, expressions, strings, conf.get(WarpConf.BATCH_ROWS),
        conf.get(WarpConf.BATCH_BYTES), FaultInjection.of(conf), new InternalErrors());
  }
}
