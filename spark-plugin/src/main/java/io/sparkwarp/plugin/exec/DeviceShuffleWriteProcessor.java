package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.partition.PartitionedBatch;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.plugin.shuffle.DeviceMapOutput;
import io.sparkwarp.plugin.shuffle.DeviceShuffleStore;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.scheduler.MapStatus$;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriteProcessor;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The map side of a GPU shuffle whose output may stay on the device ({@link DeviceShuffleStore}: local mode, one
 * device or several that read each other's memory): a map task groups its batches by partition on its device and, if
 * they fit the store's budget, keeps them there and reports their partitions' sizes to Spark's scheduler; otherwise
 * the batches grouped so far and the rest go through Spark's shuffle writer as columnar slices, as without the store.
 */
final class DeviceShuffleWriteProcessor extends ShuffleWriteProcessor {
  /** Spark's own processor for this exchange (its metrics reporter is the exchange's write metrics). */
  private final ShuffleWriteProcessor spark;
  private final SliceWriter writer;
  /** Device bytes the store may hold; 0 for a quarter of each device's memory limit. */
  private final long storeBytes;

  DeviceShuffleWriteProcessor(ShuffleWriteProcessor spark, SliceWriter writer, long storeBytes) {
    this.spark = spark;
    this.writer = writer;
    this.storeBytes = storeBytes;
  }

  @Override
  public ShuffleWriteMetricsReporter createMetricsReporter(TaskContext context) {
    return spark.createMetricsReporter(context);
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public MapStatus write(scala.collection.Iterator<Object> inputs, ShuffleDependency<?, ?, ?> dep, long mapId,
      int mapIndex, TaskContext context) {
    Iterator<ColumnarBatch> batches = (Iterator) CollectionConverters.asJava(inputs);
    DeviceShuffleStore store = DeviceShuffleStore.get();
    int shuffleId = dep.shuffleId();
    TaskGpu gpu = TaskGpu.get();
    ArrayDeque<PartitionedBatch> grouped = new ArrayDeque<>();
    context.addTaskCompletionListener((TaskCompletionListener) ctx -> Closeables.closeAll(grouped.stream().toList()));
    int position = writer.firstPosition();
    GpuRuntime runtime = GpuRuntime.get();
    long budget = storeBytes > 0 ? storeBytes : gpu.backend().deviceMemory().limit() / 4 * runtime.devices().size();
    long bytes = 0;
    // a reduce task may run on any device: it reads this output where it stays only if its device can
    boolean fits = runtime.devicesReadEachOther();
    DeviceRetry retry = writer.retry();
    while (fits && batches.hasNext()) {
      ColumnarBatch next = batches.next();  // the input's own work is not this exchange's time
      long start = System.nanoTime();
      Iterator<PartitionedBatch> pieces = writer.partition(next, position, gpu, retry);
      while (pieces.hasNext()) {
        PartitionedBatch batch = pieces.next();
        grouped.add(batch);
        position += batch.batch().rowCount();
        bytes += batch.batch().deviceBytes();
      }
      writer.metrics().time().add(System.nanoTime() - start);
      fits = bytes <= store.room(budget);  // else stop holding: the rest streams through Spark's shuffle
    }
    if (fits && store.reserve(bytes, budget)) {
      DeviceMapOutput output;
      try {
        output = DeviceMapOutput.copyOf(grouped.stream().toList(), writer.numPartitions(), gpu.backend(),
            gpu.stream(), gpu.device().sharedStream());
      } catch (RuntimeException e) {
        store.unreserve(bytes);
        throw e;
      }
      store.put(shuffleId, mapId, output);
      long[] sizes = output.partitionBytes(writer.numPartitions());
      report(context, grouped, sizes);
      Closeables.closeAll(grouped.stream().toList());
      grouped.clear();
      gpu.releaseDeviceIfIdle();
      return MapStatus$.MODULE$.apply(DeviceShuffleStore.location(SparkEnv.get().blockManager().shuffleServerId()),
          sizes, mapId, MapStatus$.MODULE$.apply$default$4());
    }
    store.wroteThroughSpark(shuffleId, mapId);
    return spark.write((scala.collection.Iterator) CollectionConverters.asScala(writer.records(grouped, batches,
        position)), dep, mapId, mapIndex, context);
  }

  /** The exchange's and the task's write metrics for output kept on the device. */
  private void report(TaskContext context, Iterable<PartitionedBatch> grouped, long[] sizes) {
    long rows = 0;
    long unsafeBytes = 0;
    for (PartitionedBatch batch : grouped) {
      rows += batch.batch().rowCount();
      unsafeBytes += unsafeRowBytes(batch.batch());
    }
    long written = 0;
    for (long size : sizes) written += size;
    writer.metrics().rows().add(rows);
    writer.metrics().dataSize().add(unsafeBytes);
    ShuffleWriteMetricsReporter task = createMetricsReporter(context);
    task.incRecordsWritten(rows);
    task.incBytesWritten(written);
  }

  /**
   * About what these rows would take as Spark's UnsafeRows ({@link SliceWriter#unsafeRowBytes} counts it exactly
   * from host vectors): without reading the strings back, each string's padding to 8 bytes is taken as 4 on average
   * and null values as present.
   */
  static long unsafeRowBytes(DeviceBatch batch) {
    int columns = batch.columnCount();
    long rows = batch.rowCount();
    long bytes = rows * (8L * ((columns + 63) / 64) + 8L * columns);
    for (int c = 0; c < columns; c++) {
      DeviceColumn column = batch.column(c);
      if (column.type().isVariableWidth()) {
        bytes += column.dataBytes() + 4 * rows;
      } else if (column.type().isDecimal() && column.type().precision() > 18) {
        bytes += 16 * rows;
      }
    }
    return bytes;
  }
}
