package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.aggregate.Aggregate;
import io.sparkwarp.kernels.aggregate.AggregateResult;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The partition function of {@link GpuHashAggregateExec}, spark-rapids' pipeline of update, merge and final steps:
 * every input batch is projected (grouping keys and the functions' inputs, by one expression program) and aggregated
 * into buffers; the per-batch buffers are merged whenever they pile up past {@code mergeRows} and once at the end;
 * a final aggregate then finishes each function's result and evaluates the result expressions. At most one batch
 * comes out per partition. A global aggregate (no grouping) gives its one row even for an empty partition, as Spark.
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
   */
  record Spec(List<Expression> grouping, List<AggregateFunctionPlan> functions, List<Attribute> childOutput,
      List<Attribute> resultInput, List<NamedExpression> resultExpressions, List<Attribute> output, boolean ansi,
      String timeZone, int mergeRows) implements Serializable {
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

  private final Spec spec;
  private final OperatorMetrics metrics;

  AggregatePartition(Spec spec, UnaryExec node) {
    this.spec = spec;
    this.metrics = OperatorMetrics.of(node);
  }

  @Override
  public Iterator<ColumnarBatch> apply(Iterator<ColumnarBatch> input) {
    ColumnProjection inputs = spec.inputs();
    CompiledExpressions result = spec.result();
    if (!inputs.reasons().isEmpty() || result != null && !result.supported()) {
      throw new IllegalStateException("an aggregate that passed planning no longer compiles: " + inputs.reasons()
          + (result == null ? "" : result.reasons()));
    }
    return new LazyBatchIterator() {
      private boolean done;

      @Override
      protected ColumnarBatch computeNext() {
        if (done) return null;
        done = true;
        DeviceBatch out = aggregateAll(input, inputs, result);
        if (out == null) return null;
        metrics.produced(out.rowCount());
        return DeviceBatches.wrap(out, spec.output());
      }
    };
  }

  /** The partition's one output batch, or null when a grouped aggregate saw no rows. */
  private DeviceBatch aggregateAll(Iterator<ColumnarBatch> input, ColumnProjection inputs, CompiledExpressions result) {
    TaskGpu gpu = TaskGpu.get();
    Backend backend = gpu.backend();
    DeviceStream stream = gpu.stream();
    List<DeviceBatch> partials = new ArrayList<>();
    try {
      long partialRows = 0;
      while (input.hasNext()) {
        ColumnarBatch batch = input.next();
        gpu.acquireDevice();
        long start = System.nanoTime();
        try (DeviceBatch in = DeviceBatches.unwrap(batch)) {
          metrics.inputRows().add(in.rowCount());
          DeviceBatch partial = first(backend, inputs, in, stream);
          partials.add(partial);
          partialRows += partial.rowCount();
        }
        if (partials.size() > 1 && partialRows > spec.mergeRows()) {
          DeviceBatch merged = mergeAll(backend, partials, Stage.MERGE, stream);
          partials.add(merged);
          partialRows = merged.rowCount();
        }
        metrics.gpuTime().add(System.nanoTime() - start);
      }
      long start = System.nanoTime();
      gpu.acquireDevice();
      if (partials.isEmpty()) {
        if (!spec.grouping().isEmpty()) return null;
        // a global aggregate's one row: the first stage over no rows gives every buffer's starting value
        try (DeviceBatch empty = DeviceBatches.empty(backend, DeviceBatches.types(spec.childOutput(), spec.timeZone()),
            stream)) {
          partials.add(first(backend, inputs, empty, stream));
        }
      }
      DeviceBatch out;
      if (!spec.finalMode()) {
        out = partials.size() == 1 ? partials.remove(0) : mergeAll(backend, partials, Stage.MERGE, stream);
      } else {
        try (DeviceBatch last = mergeAll(backend, partials, Stage.LAST, stream)) {
          out = finish(backend, last, result, stream);
        }
      }
      metrics.gpuTime().add(System.nanoTime() - start);
      return out;
    } finally {
      Closeables.closeAll(partials);
    }
  }

  /** The first stage over one input batch: its keys and buffers. */
  private DeviceBatch first(Backend backend, ColumnProjection inputs, DeviceBatch in, DeviceStream stream) {
    try (ColumnProjection.Projected p = inputs.of(backend, in, stream)) {
      return aggregate(backend, in.rowCount(), p.columns(), Stage.FIRST, stream);
    }
  }

  /** Concatenates {@code partials} (and closes them, emptying the list) and aggregates them in {@code stage}. */
  private DeviceBatch mergeAll(Backend backend, List<DeviceBatch> partials, Stage stage, DeviceStream stream) {
    DeviceBatch all = partials.size() == 1 ? partials.get(0) : BatchConcatenator.concat(backend, partials, stream);
    try {
      return aggregate(backend, all.rowCount(), all.columns(), stage, stream);
    } finally {
      if (all != partials.get(0)) all.close();
      Closeables.closeAll(partials);
      partials.clear();
    }
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
    AggregateResult r = backend.aggregates().aggregate(rows, columns.subList(0, keys),
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

  /** The output of a final aggregate from its last stage: results finished, result expressions evaluated. */
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
      // finished averages are new columns; the others are `last`'s, closed with it (closing twice is harmless)
      Closeables.closeAll(results);
    }
  }
}
