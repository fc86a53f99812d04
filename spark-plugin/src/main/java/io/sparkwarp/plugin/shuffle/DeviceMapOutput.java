package io.sparkwarp.plugin.shuffle;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchRange;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.kernels.partition.PartitionedBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * One map task's shuffle output kept on the device: its batches grouped by partition, in device memory charged to
 * no task (the tasks that wrote and read it come and go), and per string column where each partition's bytes
 * start, so that a reader cuts any run of partitions out of it without reading anything back.
 */
public final class DeviceMapOutput implements AutoCloseable {
  /** A batch whose partition p is rows [starts[p], starts[p + 1]); dataStarts[c][p] likewise for column c's bytes. */
  private record Grouped(DeviceBatch batch, int[] starts, long[][] dataStarts) {}

  private final List<Grouped> batches;
  private final Backend backend;
  private final long deviceBytes;

  private DeviceMapOutput(List<Grouped> batches, Backend backend) {
    this.batches = batches;
    this.backend = backend;
    this.deviceBytes = batches.stream().mapToLong(g -> g.batch().deviceBytes()).sum();
  }

  /**
   * Copies {@code grouped} (a map task's batches, on its stream) into memory of no task on {@code shared}, and
   * reads their string columns' partition bounds back ({@link BatchSlicer#offsetsAt}); the inputs stay open. A batch may
   * have fewer partitions than the shuffle's {@code numPartitions} (range partitioning over few distinct keys
   * samples fewer bounds): the others are empty.
   */
  public static DeviceMapOutput copyOf(List<PartitionedBatch> grouped, int numPartitions, Backend backend,
      DeviceStream taskStream, DeviceStream shared) {
    List<long[][]> bounds = new ArrayList<>();
    List<int[]> starts = new ArrayList<>();
    for (PartitionedBatch p : grouped) {
      int[] padded = java.util.Arrays.copyOf(p.starts(), numPartitions + 1);
      java.util.Arrays.fill(padded, p.starts().length, padded.length, p.batch().rowCount());
      starts.add(padded);
      bounds.add(BatchSlicer.offsetsAt(backend, p.batch(), padded, taskStream));
    }
    taskStream.synchronize();  // the grouping's gathers are done before the shared stream copies their output
    List<Grouped> copies = new ArrayList<>();
    try (DeviceMemory.TaskScope noTask = backend.deviceMemory().enterTask(DeviceMemory.NO_TASK)) {
      for (int i = 0; i < grouped.size(); i++) {
        PartitionedBatch p = grouped.get(i);
        copies.add(new Grouped(BatchConcatenator.concat(backend, List.of(p.batch()), shared), starts.get(i),
            bounds.get(i)));
      }
      shared.synchronize();  // the task frees its copies next, on its own stream; readers use theirs
    } catch (RuntimeException e) {
      copies.forEach(g -> g.batch().close());
      throw e;
    }
    return new DeviceMapOutput(copies, backend);
  }

  /** Rows of partitions [startPartition, endPartition) of each batch, in order; empty ranges left out. */
  public List<BatchRange> ranges(int startPartition, int endPartition) {
    List<BatchRange> ranges = new ArrayList<>();
    for (Grouped g : batches) {
      int from = g.starts()[startPartition];
      int rows = g.starts()[endPartition] - from;
      if (rows == 0) continue;
      int columns = g.batch().columnCount();
      long[] dataFrom = new long[columns];
      long[] dataTo = new long[columns];
      for (int c = 0; c < columns; c++) {
        if (g.dataStarts()[c] != null) {
          dataFrom[c] = g.dataStarts()[c][startPartition];
          dataTo[c] = g.dataStarts()[c][endPartition];
        }
      }
      ranges.add(new BatchRange(g.batch(), from, rows, dataFrom, dataTo));
    }
    return ranges;
  }

  /**
   * Bytes of each of {@code numPartitions} partitions as Arrow buffers (validity, values, offsets, string bytes): what
   * Spark's scheduler and adaptive execution read as the map output's block sizes; 0 exactly for empty partitions (a
   * partition of rows without columns counts a byte a row: Spark's reader skips blocks of size 0).
   */
  public long[] partitionBytes(int numPartitions) {
    long[] sizes = new long[numPartitions];
    for (Grouped g : batches) {
      for (int p = 0; p < numPartitions; p++) {
        long rows = g.starts()[p + 1] - g.starts()[p];
        if (rows == 0) continue;
        for (int c = 0; c < g.batch().columnCount(); c++) {
          DeviceType type = g.batch().column(c).type();
          sizes[p] += (rows + 7) / 8 + (type.isVariableWidth()
              ? 4 * (rows + 1) + g.dataStarts()[c][p + 1] - g.dataStarts()[c][p] : type.valueBytes(rows));
        }
        if (g.batch().columnCount() == 0) sizes[p] += rows;
      }
    }
    return sizes;
  }

  public long deviceBytes() {
    return deviceBytes;
  }

  /** The device whose memory holds the batches. */
  public Backend backend() {
    return backend;
  }

  @Override
  public void close() {
    Closeables.closeAll(batches.stream().map(Grouped::batch).toList());
  }
}
