package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.kernels.memory.DeviceOutOfMemoryException;
import io.sparkwarp.plugin.config.FaultInjection;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.util.TaskCompletionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release-and-retry of one operator's device steps in one partition, after spark-rapids' {@code withRetry} and its
 * split-and-retry. A step that runs out of device memory has freed what it made (steps borrow their input, close
 * their temporaries on every exception and hand nothing on before they return), so it can run again: first once
 * another task on the device has freed memory, then, if it fails again or no other task holds memory that waiting
 * could bring back, on the halves of its input by rows, in order, each half retried and split the same way. A single
 * row that does not fit fails with an error naming the operator and the bytes it asked for. A step whose input cannot
 * be split only waits and runs again, after its caller freed what it can do without where it can ({@link #run}).
 */
final class DeviceRetry {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceRetry.class);
  /** The longest a step waits for other tasks to free memory before it splits its input (or fails, unsplit). */
  static final long WAIT_MILLIS = 10_000;
  /** Times an unsplittable step runs again (after its caller or other tasks freed memory) before it gives up. */
  private static final int MAX_RETRIES = 3;

  /** Makes the piece of {@code whole} at rows [start, start + length), which the caller closes. */
  interface Slicer<I> {
    I slice(I whole, int start, int length);
  }

  private final RetryMetrics metrics;
  /** The task's device memory, looked up only when a step ran out of it. */
  private final Supplier<DeviceMemory> memory;
  /** Tests' injected failures for this partition; null outside tests. */
  private final LongPredicate injected;

  DeviceRetry(RetryMetrics metrics, Supplier<DeviceMemory> memory, LongPredicate injected) {
    this.metrics = metrics;
    this.memory = memory;
    this.injected = injected;
  }

  /** The retry of {@code metrics.operator()}'s steps in the current task (on the executor). */
  static DeviceRetry of(RetryMetrics metrics) {
    return of(metrics, metrics.operator());
  }

  /**
   * The retry of steps {@code metrics.operator()} runs in the current task besides its own per-partition work (a
   * broadcast join's build), whose injected failures tests name {@code faultName} so as to tell them apart.
   */
  static DeviceRetry of(RetryMetrics metrics, String faultName) {
    return new DeviceRetry(metrics, () -> TaskGpu.get().backend().deviceMemory(),
        FaultInjection.of(WarpConf.of(SQLConf.get())).allocationFailures(faultName));
  }

  /**
   * {@code step}'s result, run again each time another task freed device memory after it ran out (for steps whose
   * input cannot be split, such as a merge of the whole partition).
   */
  <O> O run(Supplier<O> step) {
    return run(step, "", () -> false);
  }

  /**
   * {@link #run(Supplier)} for a step whose caller holds device memory it can do without: each time the step runs out,
   * {@code release} frees what it can first (returning whether it freed any), and the step runs again at once when it
   * did, or else once another task freed memory; at most {@link #MAX_RETRIES} times in all.
   *
   * @param what what the step makes, for the error: empty, or " making ..."
   */
  <O> O run(Supplier<O> step, String what, BooleanSupplier release) {
    for (int retries = 0; ; retries++) {
      try {
        return attempt(step);
      } catch (DeviceOutOfMemoryException e) {
        if (retries == MAX_RETRIES || !(released(e, release) || await(e))) {
          throw new DeviceOutOfMemoryException(metrics.operator() + " ran out of device memory" + what + ", and "
              + "waiting for other tasks to free some did not help: " + e.getMessage(), e);
        }
      }
    }
  }

  /**
   * Whether {@code release} freed memory of the caller's after {@code failure}, so the step may run again; not
   * counted in the retries metric, which tells of other tasks' memory.
   */
  private boolean released(DeviceOutOfMemoryException failure, BooleanSupplier release) {
    boolean freed = release.getAsBoolean();
    if (freed) {
      LOG.info("sparkwarp: {} ran out of device memory ({}); freed memory it could do without, running it again",
          metrics.operator(), failure.getMessage());
    }
    return freed;
  }

  /** Waits for another task to free device memory after {@code failure}; returns whether the step may run again. */
  private boolean await(DeviceOutOfMemoryException failure) {
    long start = System.nanoTime();
    boolean freed = memory.get().awaitFreeByOtherTask(WAIT_MILLIS);
    LOG.info("sparkwarp: {} ran out of device memory ({}); {} after {} ms", metrics.operator(), failure.getMessage(),
        freed ? "another task freed some, running it again" : "waiting cannot help",
        (System.nanoTime() - start) / 1_000_000);
    if (freed) metrics.retries().add(1);
    return freed;
  }

  /**
   * {@code step}'s results over {@code input}: one, or when it does not fit, one per piece of rows, in row order.
   * Takes {@code input} (closed after its last piece, or when the task ends); {@code step} borrows what it is given.
   */
  <I extends AutoCloseable, O> Iterator<O> splitting(I input, int rows, Slicer<I> slicer, Function<I, O> step) {
    return new Pieces<>(input, rows, slicer, step);
  }

  /** {@link #splitting} of a device batch, its pieces copied on the task's stream. */
  <O> Iterator<O> splitting(TaskGpu gpu, DeviceBatch input, Function<DeviceBatch, O> step) {
    return splitting(input, input.rowCount(),
        (whole, start, length) -> BatchSlicer.slice(gpu.backend(), whole, start, length, gpu.stream()), step);
  }

  private <O> O attempt(Supplier<O> step) {
    if (injected == null) return step.get();
    try (DeviceMemory.TaskScope faults = DeviceMemory.injectFailures(injected)) {
      return step.get();
    }
  }

  /** Row ranges of one input still to process, the next on top, and the input they are cut from. */
  private final class Pieces<I extends AutoCloseable, O> implements Iterator<O> {
    private final I input;
    private final int rows;
    private final Slicer<I> slicer;
    private final Function<I, O> step;
    /** Pairs {start, length}. */
    private final ArrayDeque<int[]> ranges = new ArrayDeque<>();
    private boolean splitBefore;
    private boolean closed;

    Pieces(I input, int rows, Slicer<I> slicer, Function<I, O> step) {
      this.input = input;
      this.rows = rows;
      this.slicer = slicer;
      this.step = step;
      ranges.push(new int[] {0, rows});
    }

    @Override
    public boolean hasNext() {
      return !ranges.isEmpty();
    }

    @Override
    public O next() {
      if (!hasNext()) throw new NoSuchElementException();
      boolean waited = false;
      while (true) {
        int[] range = ranges.peek();
        O out;
        try {
          out = attempt(() -> process(range[0], range[1]));
        } catch (DeviceOutOfMemoryException e) {
          if (!waited && await(e)) {
            waited = true;
            continue;
          }
          if (range[1] <= 1) {
            close();
            throw new DeviceOutOfMemoryException(metrics.operator() + " cannot fit " + (range[1] == 1 ? "one row"
                : "an empty batch") + " in device memory, even after waiting for other tasks and splitting its batch "
                + "of " + rows + " rows: " + e.getMessage(), e);
          }
          split();
          waited = false;
          continue;
        } catch (RuntimeException e) {
          close();
          throw e;
        }
        ranges.pop();
        if (ranges.isEmpty()) close();
        return out;
      }
    }

    private O process(int start, int length) {
      if (length == rows) return step.apply(input);
      I piece = slicer.slice(input, start, length);
      try {
        return step.apply(piece);
      } finally {
        Closeables.closeAll(List.of(piece));
      }
    }

    /** The top range becomes its two halves, the first on top. */
    private void split() {
      TaskContext task = TaskContext.get();
      if (!splitBefore && task != null) {
        // the input now outlives this call: a task that ends before taking every piece frees it
        task.addTaskCompletionListener((TaskCompletionListener) c -> close());
      }
      splitBefore = true;
      int[] range = ranges.pop();
      LOG.info("sparkwarp: {} splits a batch of {} rows in halves for device memory", metrics.operator(), range[1]);
      int half = range[1] / 2;
      ranges.push(new int[] {range[0] + half, range[1] - half});
      ranges.push(new int[] {range[0], half});
      metrics.splits().add(1);
    }

    void close() {
      if (closed) return;
      closed = true;
      ranges.clear();
      Closeables.closeAll(List.of(input));
    }
  }
}
