package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.aggregate.Aggregate;
import io.sparkwarp.kernels.aggregate.AggregateResult;
import io.sparkwarp.kernels.aggregate.RankedExtremes;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;

/**
 * The partition function of {@link GpuHashAggregateExec}, spark-rapids' pipeline of update, merge and final steps:
 * every input batch is projected (grouping keys and the functions' inputs, by one expression program) and aggregated
 * into buffers; the per-batch buffers are merged whenever they pile up past {@code mergeRows} (or half the state
 * bytes) and once at the end; a final aggregate then finishes each function's result and evaluates the result
 * expressions. Buffers that outgrow the state bytes go on early (partial mode) or spill to host memory in buckets
 * of their keys (other modes), so the groups of a partition need not fit the device at once. A global aggregate (no
 * grouping) gives its one row even for an empty partition, as Spark.
 */
final class AggregatePartition implements Partitions.BatchFunction<ColumnarBatch> {
  /** The aggregation of one stage: which aggregates each function computes. */
  private enum Stage { FIRST, MERGE, LAST }

  /**
   * What a partition needs, serialisable with the closure.
   *
   * @param grouping the grouping expressions over the child's output
   * @param resultInput the grouping attributes then the functions' result attributes (final modes)
   * @param resultExpressions the output expressions over {@code resultInput}; null in partial modes, where the
   *     output is the grouping keys then the buffers
   * @param mergeRows rows of per-batch buffers at which they are merged
   * @param stateBytes device bytes of buffers a partition keeps; past half of it they are merged, and buffers that
   *     merging leaves above it are handed on (partial modes) or spilled to host memory (final modes)
   * @param handOn whether merged buffers may go on before the partition ends: only for a partial aggregate, which a
   *     merge after the shuffle always follows (a partial merge of the distinct rewrite must give each group once)
   * @param upstreamPartitions the hash partition count of the shuffle feeding this aggregate (1 if none), which a
   *     spill's bucket count must not share a factor with
   */
  record Spec(List<Expression> grouping, List<AggregateFunctionPlan> functions, List<Attribute> childOutput,
      List<Attribute> resultInput, List<NamedExpression> resultExpressions, List<Attribute> output, boolean ansi,
      String timeZone, int mergeRows, long stateBytes, boolean handOn, int upstreamPartitions) implements Serializable {
    Spec {
      grouping = List.copyOf(grouping);
      functions = List.copyOf(functions);
      childOutput = List.copyOf(childOutput);
      resultInput = List.copyOf(resultInput);
      output = List.copyOf(output);
    }

    boolean finalMode() {
      return resultExpressions != null;
    }

    ExpressionSettings settings() {
      return new ExpressionSettings(ansi, timeZone, f -> true);
    }

    /** The grouping keys then every function's first-stage inputs, over the child's output. */
    ColumnProjection inputs() {
      List<Expression> all = new ArrayList<>(grouping);
      for (AggregateFunctionPlan f : functions) all.addAll(f.inputs());
      return ColumnProjection.compile(all, childOutput, settings());
    }

    /** The result expressions, compiled; null in partial modes. */
    CompiledExpressions result() {
      return finalMode() ? ExpressionCompiler.compileProjection(resultExpressions, resultInput, settings()) : null;
    }
  }

  /** Levels of spill buckets: a bucket of a bucket of ~31 x 37 x 41 times the budget still fits it. */
  private static final int MAX_SPILL_LEVELS = 3;

  /** Spilled buckets and the next to finish. */
  private static final class Level {
    final SpilledGroups groups;
    int next;

    Level(SpilledGroups groups) {
      this.groups = groups;
    }
  }

  private final Spec spec;
  private final OperatorMetrics metrics;
  private final SQLMetric spillBytes;
  private final RetryMetrics retryMetrics;

  AggregatePartition(Spec spec, UnaryExec node) {
    this.spec = spec;
    this.metrics = OperatorMetrics.of(node);
    this.retryMetrics = RetryMetrics.of(node);
    this.spillBytes = node.metric(GpuMetrics.SPILL_BYTES);
  }

  @Override
  public Iterator<ColumnarBatch> apply(Iterator<ColumnarBatch> input) {
    ColumnProjection inputs = spec.inputs();
    CompiledExpressions result = spec.result();
    if (!inputs.reasons().isEmpty() || result != null && !result.supported()) {
      throw new IllegalStateException("an aggregate that passed planning no longer compiles: " + inputs.reasons()
          + (result == null ? "" : result.reasons()));
    }
    Run run = new Run(input, inputs, result);
    TaskContext task = TaskContext.get();
    if (task != null) task.addTaskCompletionListener((TaskCompletionListener) ctx -> run.close());
    return run;
  }

  /**
   * One partition's aggregation. Its buffers stay on the device while they fit {@code stateBytes}; past that a
   * partial aggregate hands its merged buffers on (the merge after the shuffle combines them), and any other
   * aggregate spills them, split by key, to host memory ({@link SpilledGroups}) and finishes one bucket at a time.
   */
  private final class Run extends LazyBatchIterator implements AutoCloseable {
    private final Iterator<ColumnarBatch> input;
    private final ColumnProjection inputs;
    private final CompiledExpressions result;
    private final TaskGpu gpu = TaskGpu.get();
    private final DeviceRetry retry = DeviceRetry.of(retryMetrics);
    private final Backend backend = gpu.backend();
    private final DeviceStream stream = gpu.stream();
    private final List<DeviceBatch> partials = new ArrayList<>();
    private long partialRows;
    private long partialBytes;
    private boolean inputDone;
    private SpilledGroups spilled;
    /** Spilled buckets left to finish, innermost split first, each with its next bucket. */
    private final ArrayDeque<Level> levels = new ArrayDeque<>();

    Run(Iterator<ColumnarBatch> input, ColumnProjection inputs, CompiledExpressions result) {
      this.input = input;
      this.inputs = inputs;
      this.result = result;
    }

    @Override
    protected ColumnarBatch computeNext() {
      DeviceBatch out = nextOutput();
      if (out == null) return null;
      metrics.produced(out.rowCount());
      return DeviceBatches.wrap(out, spec.output());
    }

    private DeviceBatch nextOutput() {
      while (!inputDone && input.hasNext()) {
        DeviceBatch handedOn = consume(input.next());
        if (handedOn != null) return handedOn;
      }
      if (!inputDone) {
        inputDone = true;
        if (spilled == null) return timed(() -> lastOfAll(false));
        timedStep(this::spillAll);
        levels.push(new Level(spilled));
      }
      while (!levels.isEmpty()) {
        Level level = levels.peek();
        if (level.next == level.groups.buckets()) {
          levels.pop();
          continue;
        }
        int b = level.next++;
        if (level.groups.bytes(b) > spec.stateBytes() / 2 && levels.size() < MAX_SPILL_LEVELS) {
          // too large to merge within the budget: its groups into buckets of their own, finished first
          levels.push(new Level(timed(() -> level.groups.split(b, spec.stateBytes() / 4, gpu))));
          continue;
        }
        gpu.acquireDevice();
        DeviceBatch bucket = level.groups.take(b, gpu);
        if (bucket == null) continue;
        partials.add(bucket);
        DeviceBatch out = timed(() -> lastOfAll(true));  // a bucket holds pieces of several merges
        if (out.rowCount() > 0) return out;
        out.close();
      }
      return null;
    }

    /** Aggregates one input batch; returns merged buffers a partial aggregate hands on now, else null. */
    private DeviceBatch consume(ColumnarBatch batch) {
      gpu.acquireDevice();
      return timed(() -> {
        DeviceBatch in = DeviceBatches.unwrap(batch);
        metrics.inputRows().add(in.rowCount());
        // buffers are merged later anyway: a batch too large for the device is aggregated in pieces
        Iterator<DeviceBatch> pieces = retry.splitting(gpu, in, piece -> first(backend, inputs, piece, stream));
        while (pieces.hasNext()) add(pieces.next());
        if (!overBudget() && (partials.size() < 2 || partialRows <= spec.mergeRows())) return null;
        if (spilled == null && partials.size() > 1) {
          long before = partialRows;
          DeviceBatch merged = mergeAll(retry, backend, partials, Stage.MERGE, stream);
          partialRows = 0;
          partialBytes = 0;
          add(merged);
          boolean shrinks = 2 * merged.rowCount() <= before;
          if (spec.grouping().isEmpty() || !overBudget() && (shrinks || !spec.handOn())) return null;
        }
        if (spec.grouping().isEmpty()) return null;
        // the buffers outgrow the memory kept for them, or merging no longer shrinks them (many distinct keys)
        if (spec.handOn()) return takeAll();
        // spilled buffers already showed more groups than fit: later ones go to the buckets unmerged
        spillAll();
        return null;
      });
    }

    private boolean overBudget() {
      return partialBytes > spec.stateBytes() / 2;
    }

    /** The one merged batch of buffers left (a partial aggregate merges before it hands on). */
    private DeviceBatch takeAll() {
      DeviceBatch only = partials.size() == 1 ? partials.remove(0)
          : mergeAll(retry, backend, partials, Stage.MERGE, stream);
      partialRows = 0;
      partialBytes = 0;
      return only;
    }

    /** Moves every batch of buffers to the buckets; one the spill has not reached stays owned by the list. */
    private void spillAll() {
      while (!partials.isEmpty()) spill(partials.remove(0));
      partialRows = 0;
      partialBytes = 0;
    }

    private void add(DeviceBatch partial) {
      partials.add(partial);
      partialRows += partial.rowCount();
      partialBytes += partial.deviceBytes();
    }

    private void spill(DeviceBatch groups) {
      if (spilled == null) {
        spilled = new SpilledGroups(spec.grouping().size(), spec.upstreamPartitions(),
            IntStream.range(0, groups.columnCount()).mapToObj(i -> "buffer" + i).toList());
      }
      long before = spilled.bytes();
      spilled.add(groups, gpu);
      spillBytes.add(spilled.bytes() - before);
    }

    /**
     * The output of the buffers left (the whole partition, or one spilled bucket): merged (partial modes) or
     * finished (final modes); null when a grouped aggregate saw no rows. {@code unmerged}: a single batch left may
     * still repeat a group.
     */
    private DeviceBatch lastOfAll(boolean unmerged) {
      gpu.acquireDevice();
      if (partials.isEmpty()) {
        if (!spec.grouping().isEmpty()) return null;
        // a global aggregate's one row: the first stage over no rows gives every buffer's starting value
        try (DeviceBatch empty = DeviceBatches.empty(backend, DeviceBatches.types(spec.childOutput(), spec.timeZone()),
            stream)) {
          partials.add(first(backend, inputs, empty, stream));
        }
      }
      partialRows = 0;
      partialBytes = 0;
      if (!spec.finalMode()) {
        return partials.size() == 1 && !unmerged ? partials.remove(0)
            : mergeAll(retry, backend, partials, Stage.MERGE, stream);
      }
      try (DeviceBatch last = mergeAll(retry, backend, partials, Stage.LAST, stream)) {
        return retry.run(() -> finish(backend, last, result, stream));
      }
    }

    private <T> T timed(Supplier<T> step) {
      return GpuMetrics.timed(metrics.gpuTime(), step);
    }

    private void timedStep(Runnable step) {
      GpuMetrics.timedStep(metrics.gpuTime(), step);
    }

    @Override
    public void close() {
      Closeables.closeAll(partials);
      partials.clear();
    }
  }

  /** The first stage over one input batch: its keys and buffers. */
  private DeviceBatch first(Backend backend, ColumnProjection inputs, DeviceBatch in, DeviceStream stream) {
    try (ColumnProjection.Projected p = inputs.of(backend, in, stream)) {
      return aggregate(backend, in.rowCount(), p.columns(), Stage.FIRST, stream);
    }
  }

  /**
   * Concatenates {@code partials} and aggregates them in {@code stage}, then closes them, emptying the list. It needs
   * them all at once, so device memory running out is waited for, not split.
   */
  private DeviceBatch mergeAll(DeviceRetry retry, Backend backend, List<DeviceBatch> partials, Stage stage,
      DeviceStream stream) {
    DeviceBatch merged = retry.run(() -> {
      DeviceBatch all = partials.size() == 1 ? partials.get(0) : BatchConcatenator.concat(backend, partials, stream);
      try {
        return aggregate(backend, all.rowCount(), all.columns(), stage, stream);
      } finally {
        if (all != partials.get(0)) all.close();
      }
    });
    Closeables.closeAll(partials);
    partials.clear();
    return merged;
  }

  /**
   * One stage's aggregation of {@code columns}: the grouping keys, then the stage's inputs (the functions' inputs
   * in the first stage, their buffers after it). Raises Spark's overflow errors.
   */
  private DeviceBatch aggregate(Backend backend, int rows, List<DeviceColumn> columns, Stage stage,
      DeviceStream stream) {
    int keys = spec.grouping().size();
    List<Aggregate> aggregates = new ArrayList<>();
    List<Integer> firstAggregate = new ArrayList<>();
    int at = 0;
    for (AggregateFunctionPlan f : spec.functions()) {
      firstAggregate.add(aggregates.size());
      switch (stage) {
        case FIRST -> {
          aggregates.addAll(f.first(at));
          at += f.inputs().size();
        }
        case MERGE -> {
          aggregates.addAll(f.merge(at));
          at += f.bufferWidth();
        }
        case LAST -> {
          aggregates.addAll(f.last(at));
          at += f.bufferWidth();
        }
      }
    }
    firstAggregate.add(aggregates.size());
    AggregateResult r = RankedExtremes.aggregate(backend, rows, columns.subList(0, keys),
        columns.subList(keys, columns.size()), aggregates, stream);
    try {
      for (int i = 0; i < spec.functions().size(); i++) {
        boolean overflowed = false;
        for (int a = firstAggregate.get(i); a < firstAggregate.get(i + 1); a++) overflowed |= r.anyOverflow(a);
        spec.functions().get(i).checkOverflow(overflowed, stage == Stage.LAST);
      }
      return r.groups();
    } catch (RuntimeException e) {
      r.close();
      throw e;
    }
  }

  /**
   * The output of a final aggregate from its last stage: results finished, result expressions evaluated. {@code last}
   * stays the caller's, so a retry can finish it again.
   */
  private DeviceBatch finish(Backend backend, DeviceBatch last, CompiledExpressions result, DeviceStream stream) {
    int keys = spec.grouping().size();
    List<DeviceColumn> pending = new ArrayList<>(last.columns());  // what is not yet handed on; closed with `last`
    List<DeviceColumn> results = new ArrayList<>(pending.subList(0, keys));
    try {
      int at = keys;
      for (AggregateFunctionPlan f : spec.functions()) {
        List<DeviceColumn> own = new ArrayList<>(pending.subList(at, at + f.lastWidth()));
        at += f.lastWidth();
        DeviceColumn finished = f.finish(backend, own, stream);
        results.add(finished);
      }
      DeviceBatch resultInput = new DeviceBatch(results, last.rowCount());  // a view: `last` and `results` own it
      List<DeviceColumn> out;
      try {
        out = result.matchingProgram().project(backend, resultInput, stream);
      } catch (ExpressionErrorException e) {
        throw result.toSparkException(e);
      }
      return new DeviceBatch(out, last.rowCount());
    } finally {
      // finished averages are new columns; the others are `last`'s, closed with it
      Closeables.closeAll(results.stream().filter(c -> !last.columns().contains(c)).toList());
    }
  }
}
