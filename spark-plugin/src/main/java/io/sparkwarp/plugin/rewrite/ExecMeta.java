package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.exec.GpuBroadcastExchangeExec;
import io.sparkwarp.plugin.exec.GpuExec;
import io.sparkwarp.plugin.exec.GpuToHostExec;
import io.sparkwarp.plugin.exec.HostToGpuExec;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.expressions.SortOrder$;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.BroadcastQueryStageExec;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Wraps one Spark operator during a rewrite: {@link #tag()} decides whether it can run on the GPU (recording every
 * reason it cannot), {@link #convert()} builds the new plan with transitions at every CPU/GPU boundary.
 * Subclasses add the operator's own checks ({@link #tagSelf()}) and build its GPU version ({@link #convertToGpu}).
 */
public abstract class ExecMeta {
  protected final SparkPlan plan;
  protected final RewriteContext context;
  protected final List<ExecMeta> children = new ArrayList<>();
  private final List<String> reasons = new ArrayList<>();
  /** The registry entry; null for operators with no GPU version. */
  private final Overrides.ExecRule rule;

  protected ExecMeta(SparkPlan plan, RewriteContext context, Overrides.ExecRule rule) {
    this.plan = plan;
    this.context = context;
    this.rule = rule;
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) children.add(Overrides.wrap(child, context));
  }

  /**
   * Tags the children, then this operator: config switch, output types, then its own checks. An exception in this
   * operator's checks keeps it on the CPU with the reason "internal error: ...".
   */
  public final void tag() {
    children.forEach(ExecMeta::tag);
    if (rule == null) {
      willNotWorkOnGpu(whyNoGpuVersion());
      return;
    }
    try {
      if (!context.conf().execEnabled(rule.sparkName())) {
        willNotWorkOnGpu(rule.sparkName() + " is disabled by " + WarpConf.execKey(rule.sparkName()) + "=false");
      }
      for (Attribute a : CollectionConverters.asJava(plan.output())) {
        SparkTypes.whyNot(a.dataType()).ifPresent(why -> willNotWorkOnGpu("output " + a.name() + ": " + why));
      }
      context.faults().beforeTagging(rule.sparkName());
      tagSelf();
    } catch (Throwable t) {
      willNotWorkOnGpu(context.internalErrors().record(plan.nodeName(), t));
    }
  }

  /** Why an operator without a registry entry stays on the CPU. */
  protected String whyNoGpuVersion() {
    return "no GPU version of " + plan.nodeName();
  }

  /** The operator's own checks; call {@link #willNotWorkOnGpu} for each problem. */
  protected abstract void tagSelf();

  /** Records a reason this operator must stay on the CPU: a short lowercase fact. */
  protected final void willNotWorkOnGpu(String reason) {
    reasons.add(reason);
  }

  public final boolean canRunOnGpu() {
    return rule != null && reasons.isEmpty();
  }

  public final List<String> reasons() {
    return reasons;
  }

  /** The GPU operator, given children that already produce device batches (but see {@link #childStaysOnHost}). */
  protected abstract SparkPlan convertToGpu(List<SparkPlan> gpuChildren);

  /** Whether child {@code index} of the GPU operator stays as it is (a broadcast the operator reads itself). */
  protected boolean childStaysOnHost(int index) {
    return false;
  }

  /** A child with what only the CPU operator needed removed (a sort-merge join's sorts). */
  protected SparkPlan unsortedForGpu(SparkPlan child) {
    return child;
  }

  /**
   * This subtree after the rewrite: GPU operators where tagging allowed, transitions between the two worlds. An
   * exception while building this operator's GPU version keeps it on the CPU with the reason "internal error: ...".
   */
  public SparkPlan convert() {
    List<SparkPlan> converted = new ArrayList<>();
    for (ExecMeta child : children) converted.add(child.convert());
    if (canRunOnGpu()) {
      try {
        List<SparkPlan> onDevice = new ArrayList<>();
        for (int i = 0; i < converted.size(); i++) {
          SparkPlan c = unsortedForGpu(converted.get(i));
          onDevice.add(c instanceof GpuExec || childStaysOnHost(i) ? c
              : new HostToGpuExec(c, context.batchRows(), context.batchBytes()));
        }
        if (rule != null) context.faults().beforeConversion(rule.sparkName());
        return convertToGpu(onDevice);
      } catch (Throwable t) {
        willNotWorkOnGpu(context.internalErrors().record(plan.nodeName(), t));
      }
    }
    FallbackReasons.attach(plan, reasons);
    List<SparkPlan> onHost = new ArrayList<>();
    List<Seq<SortOrder>> required = CollectionConverters.asJava(plan.requiredChildOrdering());
    for (int i = 0; i < converted.size(); i++) {
      SparkPlan c = converted.get(i);
      // a GPU broadcast this operator cannot read (its own GPU version failed to build): Spark's exchange again, also
      // where adaptive execution made the GPU broadcast a query stage already (its build then runs once more)
      GpuBroadcastExchangeExec gpuBroadcast = gpuBroadcastOf(c);
      if (gpuBroadcast != null) {
        c = new BroadcastExchangeExec(gpuBroadcast.mode(), new GpuToHostExec(gpuBroadcast.child()));
      }
      if (c instanceof GpuExec) c = new GpuToHostExec(c);
      // a GPU join replaced a sort-merge join whose order this operator was planned on: sort again
      if (i < required.size() && !SortOrder$.MODULE$.orderingSatisfies(c.outputOrdering(), required.get(i))) {
        c = new SortExec(required.get(i), false, c, 0);
      }
      onHost.add(c);
    }
    return plan.withNewChildren(CollectionConverters.asScala(onHost).toSeq());
  }

  /** The GPU broadcast exchange {@code plan} is, or reads as a query stage of adaptive execution; else null. */
  private static GpuBroadcastExchangeExec gpuBroadcastOf(SparkPlan plan) {
    if (plan instanceof GpuBroadcastExchangeExec b) return b;
    if (plan instanceof BroadcastQueryStageExec stage && stage.broadcast() instanceof GpuBroadcastExchangeExec b) {
      return b;
    }
    return null;
  }

  /** Appends this subtree to an explain listing, '*' on the GPU, '!' on the CPU with reasons. */
  void explain(StringBuilder out, int depth, boolean onlyCpu) {
    boolean gpu = canRunOnGpu();
    if (!(gpu && onlyCpu)) {
      // the class name: one word, unlike some node names ("Scan parquet db.t")
      out.append("  ".repeat(depth)).append(gpu ? "*" : "!").append(plan.getClass().getSimpleName());
      if (gpu) {
        out.append(" will run on the GPU");
      } else {
        out.append(" cannot run on the GPU because ").append(String.join("; ", reasons));
      }
      out.append('\n');
    }
    for (ExecMeta child : children) child.explain(out, depth + 1, onlyCpu);
  }

  /** Whether any operator of this subtree stays on the CPU. */
  boolean anyOnCpu() {
    return !canRunOnGpu() || children.stream().anyMatch(ExecMeta::anyOnCpu);
  }
}
