package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.plugin.config.FaultInjection;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition function of GPU filter and project: compiles the expressions once per partition on the executor
 * (the program is small and compiling is cheap, so no program needs to be serialised), then maps each device batch
 * through its string predicates and one program launch, closing its input; a batch that does not fit device memory
 * is retried and split ({@link DeviceRetry}). Empty results are dropped; ANSI errors raised by a row become the
 * exception Spark itself throws.
 */
final class ExpressionBatchFunction implements Partitions.BatchFunction<ColumnarBatch> {
  private static final Logger LOG = LoggerFactory.getLogger(ExpressionBatchFunction.class);

  /** Applies compiled expressions to one device batch; the result is a new batch the caller owns. */
  interface Step extends java.io.Serializable {
    DeviceBatch apply(TaskGpu gpu, CompiledExpressions compiled, DeviceBatch input);
  }

  /** Compiles the operator's expressions; a serialisable recipe, run on the executor. */
  interface Compile extends java.io.Serializable, Supplier<CompiledExpressions> {}

  private final Compile compile;
  private final Step step;
  /** How the partition runs when the device setup fails: Spark's own evaluation of the same expressions. */
  private final CpuEvaluation onCpu;
  private final String operator;
  private final List<Attribute> output;
  private final OperatorMetrics metrics;
  private final RetryMetrics retryMetrics;

  ExpressionBatchFunction(Compile compile, Step step, CpuEvaluation onCpu, List<Attribute> output, UnaryExec node) {
    this.compile = compile;
    this.step = step;
    this.onCpu = onCpu;
    this.operator = node.getClass().getSimpleName();
    this.output = output;
    this.metrics = OperatorMetrics.of(node);
    this.retryMetrics = RetryMetrics.of(node);
  }

  @Override
  public Iterator<ColumnarBatch> apply(Iterator<ColumnarBatch> input) {
    CompiledExpressions compiled;
    try {
      FaultInjection.of(WarpConf.of(SQLConf.get())).beforeTaskSetup(operator);
      compiled = compile.get();
      if (!compiled.supported()) {
        throw new IllegalStateException("expressions that passed planning no longer compile: " + compiled.reasons());
      }
    } catch (RuntimeException e) {
      LOG.warn("sparkwarp: {} could not set up partition {} on the device ({}); it runs on the CPU instead",
          operator, TaskContext.getPartitionId(), e.getMessage());
      LOG.debug("sparkwarp: the setup failure", e);
      return onCpu.apply(input);
    }
    DeviceRetry retry = DeviceRetry.of(retryMetrics);
    return new LazyBatchIterator() {
      /** The results of the current input batch: one, or one per piece when it was split for memory. */
      private Iterator<DeviceBatch> results = java.util.Collections.emptyIterator();

      @Override
      protected ColumnarBatch computeNext() {
        while (true) {
          if (results.hasNext()) {
            DeviceBatch result = results.next();
            if (result.rowCount() > 0) {
              metrics.produced(result.rowCount());
              return DeviceBatches.wrap(result, output);
            }
            result.close();
          } else if (input.hasNext()) {
            results = process(input.next(), compiled, retry);
          } else {
            return null;
          }
        }
      }
    };
  }

  /** The results of one batch, which they consume. */
  private Iterator<DeviceBatch> process(ColumnarBatch batch, CompiledExpressions compiled, DeviceRetry retry) {
    TaskGpu gpu = TaskGpu.get();
    gpu.acquireDevice();
    DeviceBatch in = DeviceBatches.unwrap(batch);
    metrics.inputRows().add(in.rowCount());
    return retry.splitting(gpu, in, piece -> {
      long start = System.nanoTime();
      try {
        // both steps read back their error record (and a filter its row count), so they return synchronised and
        // the time below is the kernels' own
        DeviceBatch result = step.apply(gpu, compiled, piece);
        metrics.gpuTime().add(System.nanoTime() - start);
        return result;
      } catch (ExpressionErrorException e) {
        throw compiled.toSparkException(e);  // Spark's own exception, with the failing expression's query context
      }
    });
  }
}
