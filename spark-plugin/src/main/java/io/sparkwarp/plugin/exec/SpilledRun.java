package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.sort.RunMerge;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.plugin.shuffle.ColumnarSlices;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A sorted run (or an input batch too large to sort at once) moved off the device: downloaded through the task's
 * pinned transfer memory and kept in host memory as serialized slices ({@link ColumnarSlices}) of about
 * {@code sliceBytes} each, which are uploaded again a piece of one or more slices at a time, front to back.
 */
final class SpilledRun implements RunMerge.Run {
  private final List<String> names;
  /** Device bytes of rows a slice holds (about; at least one row). */
  private final long sliceBytes;
  private final TaskGpu gpu;
  private final ArrayDeque<byte[]> slices = new ArrayDeque<>();
  private Schema schema;
  private long bytes;
  /** Bytes of slices {@link #next} uploads at once (at least one slice): the run's share of a merge's budget. */
  private long pieceBytes;

  SpilledRun(List<String> names, long sliceBytes, TaskGpu gpu) {
    this.names = List.copyOf(names);
    this.sliceBytes = Math.max(1, sliceBytes);
    this.pieceBytes = this.sliceBytes;
    this.gpu = gpu;
  }

  /** Appends {@code sorted}'s rows (closed here), which follow the rows added before in the run's order. */
  void add(DeviceBatch sorted) {
    int rows = sorted.rowCount();
    int sliceRows = (int) Math.max(1, Math.min(rows, sliceBytes * rows / Math.max(1, sorted.deviceBytes())));
    int[] starts = new int[(rows + sliceRows - 1) / sliceRows + 1];
    for (int s = 0; s < starts.length; s++) starts[s] = Math.min(rows, s * sliceRows);
    DeviceBatches.Downloaded host;
    try (sorted) {
      host = DeviceBatches.download(sorted, names, gpu);
    }
    try {
      List<FieldVector> columns = host.vectors();
      if (schema == null) schema = new Schema(columns.stream().map(FieldVector::getField).toList());
      for (byte[] slice : ColumnarSlices.ranges(columns, starts)) {
        slices.add(slice);
        bytes += slice.length;
      }
    } finally {
      Closeables.closeAll(host.vectors());
    }
  }

  /** Bytes of the slices held. */
  long bytes() {
    return bytes;
  }

  @Override
  public boolean hasMore() {
    return !slices.isEmpty();
  }

  /** Sets how many bytes of slices {@link #next} reads at once; fewer runs in a merge read more of each. */
  void pieceBytes(long bytes) {
    pieceBytes = bytes;
  }

  /** The next slices' rows, about {@code pieceBytes} of them, on the device (the task admitted to it first). */
  @Override
  public DeviceBatch next() {
    List<byte[]> piece = new ArrayList<>();
    long size = 0;
    while (!slices.isEmpty() && (piece.isEmpty() || size + slices.peek().length <= pieceBytes)) {
      byte[] slice = slices.remove();
      piece.add(slice);
      size += slice.length;
    }
    bytes -= size;
    gpu.acquireDevice();
    return DeviceBatches.upload(schema, piece, gpu);
  }
}
