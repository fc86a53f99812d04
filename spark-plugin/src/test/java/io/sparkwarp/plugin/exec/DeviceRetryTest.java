package io.sparkwarp.plugin.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.kernels.memory.DeviceOutOfMemoryException;
import io.sparkwarp.plugin.config.FaultInjection.AllocationFault;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.junit.jupiter.api.Test;

class DeviceRetryTest {
  /** Rows [start, start + length) of an input; records whether it was closed. */
  private static final class Rows implements AutoCloseable {
    final int start;
    final int length;
    boolean closed;

    Rows(int start, int length) {
      this.start = start;
      this.length = length;
    }

    Rows slice(int from, int count) {
      return new Rows(start + from, count);
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  private static RetryMetrics metrics() {
    return new RetryMetrics("TestExec", new SQLMetric("sum", 0), new SQLMetric("sum", 0));
  }

  /** A step that holds 8 bytes of device memory per row while it works, and frees them on every exit. */
  private static List<Integer> rowsOf(Backend backend, DeviceStream stream, Rows rows) {
    try (DeviceBuffer work = backend.allocate(8L * rows.length, stream)) {
      List<Integer> out = new ArrayList<>();
      for (int i = 0; i < rows.length; i++) out.add(rows.start + i);
      return out;
    }
  }

  /** Alone on the device, a step that does not fit splits at once, down to pieces that fit; rows stay in order. */
  @Test
  void anInputThatDoesNotFitIsProcessedInHalvesInRowOrder() {
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults());
        DeviceStream stream = backend.newStream()) {
      RetryMetrics metrics = metrics();
      LongPredicate over8Rows = bytes -> bytes > 64;
      DeviceRetry retry = new DeviceRetry(metrics, backend::deviceMemory, over8Rows);
      Rows input = new Rows(0, 20);
      Iterator<List<Integer>> pieces = retry.splitting(input, 20, Rows::slice, r -> rowsOf(backend, stream, r));
      List<Integer> all = new ArrayList<>();
      List<Integer> sizes = new ArrayList<>();
      while (pieces.hasNext()) {
        List<Integer> piece = pieces.next();
        sizes.add(piece.size());
        all.addAll(piece);
      }
      assertEquals(java.util.stream.IntStream.range(0, 20).boxed().toList(), all);
      assertEquals(List.of(5, 5, 5, 5), sizes, "20 rows halved twice");
      assertEquals(3, metrics.splits().value());
      assertEquals(0, metrics.retries().value(), "no other task could free memory: no wait");
      assertTrue(input.closed);
      assertEquals(0, backend.deviceMemory().bytesInUse(), "every failed attempt freed its memory");
    }
  }

  @Test
  void aSingleRowThatDoesNotFitFailsNamingTheOperatorAndTheBytes() {
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults());
        DeviceStream stream = backend.newStream()) {
      DeviceRetry retry = new DeviceRetry(metrics(), backend::deviceMemory, bytes -> true);
      Rows input = new Rows(0, 3);
      Iterator<List<Integer>> pieces = retry.splitting(input, 3, Rows::slice, r -> rowsOf(backend, stream, r));
      DeviceOutOfMemoryException e = assertThrows(DeviceOutOfMemoryException.class, pieces::next);
      assertTrue(e.getMessage().startsWith("TestExec cannot fit one row in device memory"), e.getMessage());
      assertTrue(e.getMessage().contains("asked for 8 bytes"), e.getMessage());
      assertTrue(input.closed);
      assertFalse(pieces.hasNext());
      assertEquals(0, backend.deviceMemory().bytesInUse());
    }
  }

  /** A step that ran out of memory waits while another task holds some, and runs again once that task frees it. */
  @Test
  void aStepRunsAgainOnceAnotherTaskFreedMemory() throws Exception {
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults().withDeviceMemoryLimit(1000));
        DeviceStream stream = backend.newStream()) {
      DeviceMemory memory = backend.deviceMemory();
      DeviceBuffer other;
      try (DeviceMemory.TaskScope t = memory.enterTask(7)) {
        other = backend.allocate(600, stream);
      }
      RetryMetrics metrics = metrics();
      DeviceRetry retry = new DeviceRetry(metrics, () -> memory, new AllocationFault(0, 1).newCounter());
      CompletableFuture<List<Integer>> waiting = CompletableFuture.supplyAsync(() -> {
        try (DeviceMemory.TaskScope t = memory.enterTask(8)) {
          return retry.run(() -> rowsOf(backend, stream, new Rows(0, 4)));
        }
      });
      Thread.sleep(100);
      assertFalse(waiting.isDone(), "gave up while another task could still free memory");
      other.close();
      assertEquals(List.of(0, 1, 2, 3), waiting.get(5, TimeUnit.SECONDS));
      assertEquals(1, metrics.retries().value());
      assertEquals(0, memory.bytesInUse());
    }
  }

  /**
   * An unsplittable step runs again at once after its caller freed memory of its own, then after other tasks did, and
   * gives up after a bounded number of retries with an error naming the operator, what the step makes and the bytes.
   */
  @Test
  void aStepRunsAgainAfterItsCallerFreedMemoryAndGivesUpWhenNothingHelps() {
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults());
        DeviceStream stream = backend.newStream()) {
      RetryMetrics metrics = metrics();
      int[] releases = {0};
      DeviceRetry twice = new DeviceRetry(metrics, backend::deviceMemory, new AllocationFault(0, 2).newCounter());
      assertEquals(List.of(0, 1), twice.run(() -> rowsOf(backend, stream, new Rows(0, 2)), " making X",
          () -> releases[0]++ < 2));
      assertEquals(2, releases[0], "freed its own memory before each retry");
      assertEquals(0, metrics.retries().value(), "no other task freed any");

      DeviceRetry always = new DeviceRetry(metrics, backend::deviceMemory, bytes -> true);
      int[] calls = {0};
      DeviceOutOfMemoryException e = assertThrows(DeviceOutOfMemoryException.class,
          () -> always.run(() -> rowsOf(backend, stream, new Rows(0, 2)), " making X", () -> ++calls[0] > 0));
      assertTrue(e.getMessage().startsWith("TestExec ran out of device memory making X, and waiting for other tasks "
          + "to free some did not help"), e.getMessage());
      assertTrue(e.getMessage().contains("asked for 16 bytes"), e.getMessage());
      assertEquals(3, calls[0], "a bounded number of retries, though the caller always freed something");
      assertEquals(0, backend.deviceMemory().bytesInUse());
    }
  }
}
