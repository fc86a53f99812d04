package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.exec.GpuBroadcastExchangeExec;
import io.sparkwarp.plugin.exec.GpuShuffleExchangeExec;
import io.sparkwarp.plugin.exec.GpuToHostExec;
import io.sparkwarp.plugin.exec.HostToGpuExec;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.RowToColumnarExec;
import org.apache.spark.sql.execution.SparkPlan;

/**
 * Where sparkwarp hooks into Spark's physical planning. Before Spark inserts its transitions: the rewrite
 * ({@link PlanRewrite}). After: Spark has put its generic RowToColumnarExec under each {@link HostToGpuExec} whose
 * input is rows; that step is dropped, because HostToGpuExec writes rows straight into pinned Arrow memory. And
 * it has put a ColumnarToRowExec under each {@link GpuShuffleExchangeExec} (an exchange that can also give rows
 * gets row input in Spark's scheme) and {@link GpuBroadcastExchangeExec} (a broadcast is no columnar output);
 * dropped too, since the exchanges read their GPU child's batches themselves.
 * A download straight into an upload is dropped as well, so the device batches flow on (TPC-H Q18 under adaptive
 * execution with shuffled joins had one over the semi-join's build side).
 * Spark's ColumnarToRowExec above each GpuToHostExec stays: it reads the downloaded Arrow vectors directly.
 */
public final class WarpColumnarRule extends ColumnarRule {
  private final PlanRewrite rewrite = new PlanRewrite();
  private final Rule<SparkPlan> dropNeedlessTransitions = new Rule<>() {
    @Override
    public SparkPlan apply(SparkPlan plan) {
      return plan.transformUp(new scala.runtime.AbstractPartialFunction<>() {
        @Override
        public boolean isDefinedAt(SparkPlan p) {
          return (p instanceof HostToGpuExec h
              && (h.child() instanceof RowToColumnarExec || h.child() instanceof GpuToHostExec))
              || ((p instanceof GpuShuffleExchangeExec || p instanceof GpuBroadcastExchangeExec)
                  && p.children().head() instanceof ColumnarToRowExec);
        }

        @Override
        public SparkPlan apply(SparkPlan p) {
          if (p instanceof HostToGpuExec h && h.child() instanceof RowToColumnarExec r) return h.withChild(r.child());
          if (p instanceof HostToGpuExec h && h.child() instanceof GpuToHostExec d) return d.child();
          if (p instanceof GpuShuffleExchangeExec e && e.child() instanceof ColumnarToRowExec c) {
            return e.withNewChildInternal(c.child());
          }
          if (p instanceof GpuBroadcastExchangeExec e && e.child() instanceof ColumnarToRowExec c) {
            return e.withNewChildInternal(c.child());
          }
          return p;
        }
      });
    }
  };

  @Override
  public Rule<SparkPlan> preColumnarTransitions() {
    return rewrite;
  }

  @Override
  public Rule<SparkPlan> postColumnarTransitions() {
    return dropNeedlessTransitions;
  }
}
