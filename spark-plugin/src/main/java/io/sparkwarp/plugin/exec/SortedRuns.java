package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.sort.DeviceSort;
import io.sparkwarp.kernels.sort.RunMerge;
import io.sparkwarp.kernels.sort.SortKey;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;

/**
 * One partition of GpuSortExec. While its input fits {@code runBytes} of device memory it is concatenated and sorted
 * at once ({@link DeviceSort}), the output one batch. Past that, each {@code runBytes} of input is sorted into a run
 * that moves to host memory ({@link SpilledRun}), and when the input ends the runs are merged on the device a piece of
 * each at a time ({@link RunMerge}), at most {@link #FAN_IN} of them at once (consecutive groups of more are first
 * merged into longer runs), so the device holds about {@code runBytes} whatever the partition's size. The merge is
 * stable, as the one sort is.
 */
final class SortedRuns implements Partitions.BatchFunction<ColumnarBatch> {
  /**
   * Runs one merge reads at once. Runs are cut into slices of {@code runBytes / (2 * FAN_IN)}, and a merge reads a
   * piece of each of its runs (one slice or more) so that the pieces take half the budget.
   */
  static final int FAN_IN = 16;

  private final List<SortKey> keys;
  private final List<Attribute> output;
  private final long runBytes;
  private final SQLMetric outputRows;
  private final SQLMetric outputBatches;
  private final SQLMetric gpuTime;
  private final SQLMetric spillBytes;
  private final SQLMetric runs;
  private final RetryMetrics retryMetrics;

  SortedRuns(List<SortKey> keys, List<Attribute> output, long runBytes, GpuSortExec node) {
    this.keys = List.copyOf(keys);
    this.output = List.copyOf(output);
    this.runBytes = runBytes;
    this.outputRows = node.metric(GpuMetrics.OUTPUT_ROWS);
    this.outputBatches = node.metric(GpuMetrics.OUTPUT_BATCHES);
    this.gpuTime = node.metric(GpuMetrics.GPU_TIME);
    this.spillBytes = node.metric(GpuMetrics.SPILL_BYTES);
    this.runs = node.metric(GpuMetrics.SORT_RUNS);
    this.retryMetrics = RetryMetrics.of(node);
  }

  @Override
  public Iterator<ColumnarBatch> apply(Iterator<ColumnarBatch> input) {
    Sort sort = new Sort(input);
    TaskContext task = TaskContext.get();
    if (task != null) task.addTaskCompletionListener((TaskCompletionListener) ctx -> sort.close());
    return sort;
  }

  /** One partition's sort: its input gathered (and spilled as runs), then its output batch or merge rounds. */
  private final class Sort extends LazyBatchIterator implements AutoCloseable {
    private final Iterator<ColumnarBatch> input;
    private final TaskGpu gpu = TaskGpu.get();
    /** A sort of a run needs it whole: when the device has no room it waits for other tasks and runs again. */
    private final DeviceRetry retry = DeviceRetry.of(retryMetrics);
    private final List<String> names = output.stream().map(Attribute::name).toList();
    /** Input batches not yet sorted, and their device bytes. */
    private final List<DeviceBatch> pending = new ArrayList<>();
    private long pendingBytes;
    private final List<SpilledRun> spilled = new ArrayList<>();
    private boolean inputDone;
    private RunMerge merge;

    Sort(Iterator<ColumnarBatch> input) {
      this.input = input;
    }

    @Override
    protected ColumnarBatch computeNext() {
      DeviceBatch out = nextOutput();
      if (out == null) return null;
      outputRows.add(out.rowCount());
      outputBatches.add(1);
      return DeviceBatches.wrap(out, output);
    }

    private DeviceBatch nextOutput() {
      if (!inputDone) {
        inputDone = true;
        if (!input.hasNext()) return null;
        while (input.hasNext()) add(DeviceBatches.unwrap(input.next()));
        if (spilled.isEmpty()) return sortPending();
        spillRun();
        GpuMetrics.timedStep(gpuTime, this::mergeToFanIn);
        merge = newMerge(spilled);
      }
      return merge == null ? null : GpuMetrics.timed(gpuTime, merge::next);
    }

    /**
     * Takes {@code batch} (closed here) into the pending input. A batch larger than the budget could not be sorted
     * beside itself within it: it moves to host memory first and comes back a half budget at a time.
     */
    private void add(DeviceBatch batch) {
      if (batch.deviceBytes() <= runBytes || batch.rowCount() <= 1) {
        addPending(batch);
        return;
      }
      SpilledRun unsorted = new SpilledRun(names, runBytes / 8, gpu);
      spill(unsorted, batch);
      unsorted.pieceBytes(runBytes / 2);
      while (unsorted.hasMore()) addPending(unsorted.next());
    }

    /** Adds {@code batch} (closed here), first sorting what is pending into a run when it would pass the budget. */
    private void addPending(DeviceBatch batch) {
      long bytes = batch.deviceBytes();
      if (!pending.isEmpty() && pendingBytes + bytes > runBytes) {
        try {
          spillRun();
        } catch (RuntimeException e) {
          batch.close();
          throw e;
        }
      }
      pending.add(batch);
      pendingBytes += bytes;
    }

    /** The pending batches as one sorted batch, freed; null when they hold no rows. */
    private DeviceBatch sortPending() {
      gpu.acquireDevice();
      return GpuMetrics.timed(gpuTime, () -> {
        try (DeviceBatch whole = pending.size() == 1 ? pending.remove(0)
            : BatchConcatenator.concat(gpu.backend(), pending, gpu.stream())) {
          Closeables.closeAll(pending);
          pending.clear();
          pendingBytes = 0;
          if (whole.rowCount() == 0) return null;
          DeviceBatch sorted = retry.run(() -> DeviceSort.sort(gpu.backend(), whole, keys, gpu.stream()));
          gpu.stream().synchronize();  // the unsorted batch is freed next
          return sorted;
        }
      });
    }

    /** Sorts the pending batches into a run in host memory. */
    private void spillRun() {
      DeviceBatch sorted = sortPending();
      if (sorted == null) return;
      SpilledRun run = newRun();
      spill(run, sorted);
      spilled.add(run);
      runs.add(1);
    }

    /** Merges consecutive groups of FAN_IN runs into one run each (which keeps the merge stable) until few are left. */
    private void mergeToFanIn() {
      while (spilled.size() > FAN_IN) {
        List<SpilledRun> longer = new ArrayList<>();
        for (int from = 0; from < spilled.size(); from += FAN_IN) {
          List<SpilledRun> group = spilled.subList(from, Math.min(spilled.size(), from + FAN_IN));
          SpilledRun run = group.size() == 1 ? group.get(0) : newRun();
          if (group.size() > 1) {
            try (RunMerge groupMerge = newMerge(group)) {
              for (DeviceBatch b = groupMerge.next(); b != null; b = groupMerge.next()) spill(run, b);
            }
          }
          longer.add(run);
        }
        spilled.clear();
        spilled.addAll(longer);
      }
    }

    /** A merge of {@code group} whose runs share half the budget between them, a piece of each at a time. */
    private RunMerge newMerge(List<SpilledRun> group) {
      for (SpilledRun run : group) run.pieceBytes(runBytes / (2L * group.size()));
      return new RunMerge(gpu.backend(), group, keys, gpu.stream());
    }

    private SpilledRun newRun() {
      return new SpilledRun(names, runBytes / (2 * FAN_IN), gpu);
    }

    /** Moves {@code sorted} (closed here) to the end of {@code run}, counting the bytes. */
    private void spill(SpilledRun run, DeviceBatch sorted) {
      long before = run.bytes();
      run.add(sorted);
      spillBytes.add(run.bytes() - before);
    }

    @Override
    public void close() {
      Closeables.closeAll(pending);
      pending.clear();
      if (merge != null) merge.close();
      spilled.clear();
    }
  }
}
