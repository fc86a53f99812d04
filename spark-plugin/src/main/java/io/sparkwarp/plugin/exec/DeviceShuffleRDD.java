package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchRange;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.plugin.Throwables;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.plugin.shuffle.DeviceMapOutput;
import io.sparkwarp.plugin.shuffle.DeviceShuffleStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import org.apache.spark.Partition;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.CoalescedMapperPartitionSpec;
import org.apache.spark.sql.execution.CoalescedPartitionSpec;
import org.apache.spark.sql.execution.PartialMapperPartitionSpec;
import org.apache.spark.sql.execution.PartialReducerPartitionSpec;
import org.apache.spark.sql.execution.ShufflePartitionSpec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLShuffleReadMetricsReporter;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.apache.spark.util.TaskCompletionListener;
import scala.Product2;
import scala.Tuple2;
import scala.Tuple3;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * The reduce side of a GPU shuffle whose map output may be on the device ({@link DeviceShuffleStore}): each task's
 * partition spec (any of adaptive execution's: coalesced, or split by map ranges) names the map outputs and the run of
 * partitions to read; output kept on the device is cut into row ranges and concatenated into device batches of about
 * the target size on the task's device (reading output another device keeps over the link between them); output that
 * went through Spark's shuffle is fetched by Spark's reader as columnar slices. Batches come out on the device (for a
 * GPU operator) or downloaded into host Arrow batches (for Spark's rows). Map output that is in neither place was
 * evicted: the read fails as a lost map output, and Spark recomputes it.
 */
final class DeviceShuffleRDD extends RDD<ColumnarBatch> {
  /** How a partition of this RDD reads: one spec. */
  private record SpecPartition(int index, ShufflePartitionSpec spec) implements Partition {}

  private final ShuffleDependency<Object, Object, Object> dependency;
  private final ShufflePartitionSpec[] specs;
  private final SliceReader sliceReader;
  private final scala.collection.immutable.Map<String, SQLMetric> readMetrics;
  /** Uploads host batches (of output read through Spark) for a GPU consumer; null for a host consumer. */
  private final Partitions.BatchFunction<ColumnarBatch> upload;
  private final List<Attribute> output;
  private final SQLMetric transferBytes;
  private final int targetRows;
  private final long targetBytes;

  DeviceShuffleRDD(ShuffleDependency<Object, Object, Object> dependency, ShufflePartitionSpec[] specs,
      SliceReader sliceReader, scala.collection.immutable.Map<String, SQLMetric> readMetrics,
      Partitions.BatchFunction<ColumnarBatch> upload, List<Attribute> output, SQLMetric transferBytes, int targetRows,
      long targetBytes) {
    super(dependency.rdd().context(), CollectionConverters.asScala(
        List.<org.apache.spark.Dependency<?>>of(dependency)).toList(), ClassTag$.MODULE$.apply(ColumnarBatch.class));
    this.dependency = dependency;
    this.specs = specs;
    this.sliceReader = sliceReader;
    this.readMetrics = readMetrics;
    this.upload = upload;
    this.output = output;
    this.transferBytes = transferBytes;
    this.targetRows = targetRows;
    this.targetBytes = targetBytes;
  }

  /** One spec per reduce partition: what a read without adaptive execution's specs covers. */
  static ShufflePartitionSpec[] eachPartition(int numPartitions) {
    ShufflePartitionSpec[] specs = new ShufflePartitionSpec[numPartitions];
    for (int i = 0; i < numPartitions; i++) specs[i] = new CoalescedPartitionSpec(i, i + 1, scala.Option.empty());
    return specs;
  }

  @Override
  public Partition[] getPartitions() {
    Partition[] partitions = new Partition[specs.length];
    for (int i = 0; i < specs.length; i++) partitions[i] = new SpecPartition(i, specs[i]);
    return partitions;
  }

  /** A spec's map outputs [startMap, endMap) and partitions [startPartition, endPartition). */
  private record Span(int startMap, int endMap, int startPartition, int endPartition) {
    static Span of(ShufflePartitionSpec spec) {
      if (spec instanceof CoalescedPartitionSpec c) {
        return new Span(0, Integer.MAX_VALUE, c.startReducerIndex(), c.endReducerIndex());
      }
      if (spec instanceof PartialReducerPartitionSpec r) {
        return new Span(r.startMapIndex(), r.endMapIndex(), r.reducerIndex(), r.reducerIndex() + 1);
      }
      if (spec instanceof PartialMapperPartitionSpec m) {
        return new Span(m.mapIndex(), m.mapIndex() + 1, m.startReducerIndex(), m.endReducerIndex());
      }
      if (spec instanceof CoalescedMapperPartitionSpec c) {
        return new Span(c.startMapIndex(), c.endMapIndex(), 0, c.numReducers());
      }
      throw new IllegalArgumentException("unknown shuffle partition spec " + spec);
    }
  }

  /** A map output this task reads, and where Spark's scheduler says it is. */
  private record MapRef(long mapId, int mapIndex, BlockManagerId location) {}

  @Override
  public scala.collection.Iterator<ColumnarBatch> compute(Partition split, TaskContext context) {
    Span span = Span.of(((SpecPartition) split).spec());
    int shuffleId = dependency.shuffleId();
    TreeMap<Integer, MapRef> maps = new TreeMap<>();
    long bytes = 0;
    var blocks = CollectionConverters.asJava(SparkEnv.get().mapOutputTracker().getMapSizesByExecutorId(shuffleId,
        span.startMap(), span.endMap(), span.startPartition(), span.endPartition()));
    while (blocks.hasNext()) {
      Tuple2<BlockManagerId, scala.collection.Seq<Tuple3<BlockId, Object, Object>>> at = blocks.next();
      for (Tuple3<BlockId, Object, Object> block : CollectionConverters.asJava(at._2())) {
        ShuffleBlockId id = (ShuffleBlockId) block._1();
        maps.putIfAbsent((Integer) block._3(), new MapRef(id.mapId(), (Integer) block._3(), at._1()));
        bytes += (Long) block._2();
      }
    }
    TaskGpu gpu = TaskGpu.get();
    DeviceShuffleStore.Reading reading = DeviceShuffleStore.get().open(shuffleId);
    context.addTaskCompletionListener((TaskCompletionListener) ctx -> {
      gpu.stream().synchronize();  // nothing of this task reads the stored output any more
      reading.close();
    });
    List<BatchRange> ranges = new ArrayList<>();
    List<Integer> throughSpark = new ArrayList<>();
    for (MapRef map : maps.values()) {
      DeviceMapOutput output = reading.onDevice(map.mapId());
      if (output != null) {
        ranges.addAll(output.ranges(span.startPartition(), span.endPartition()));
      } else if (reading.throughSpark(map.mapId())) {
        throughSpark.add(map.mapIndex());
      } else {
        throw Throwables.sneaky(new FetchFailedException(map.location(), shuffleId, map.mapId(),
            map.mapIndex(), span.startPartition(), "sparkwarp: map output " + map.mapId() + " of shuffle "
            + shuffleId + " was evicted from device memory", null));
      }
    }
    readMetrics.apply("localBlocksFetched").add(maps.size());
    readMetrics.apply("localBytesRead").add(bytes);
    Iterator<ColumnarBatch> onDevice = new Concatenations(ranges, gpu);
    Iterator<ColumnarBatch> fetched = fetchedThroughSpark(throughSpark, span, context);
    Iterator<ColumnarBatch> all = upload != null ? Iterators.concat(onDevice, upload.apply(fetched))
        : Iterators.concat(new GpuToHostExec.Downloads(onDevice, output.stream().map(Attribute::name).toList(),
            (rows, transferred, nanos) -> transferBytes.add(transferred)), fetched);
    return CollectionConverters.asScala(all);
  }

  /** Device batches of about the target size concatenated from the ranges, in order. */
  private final class Concatenations implements Iterator<ColumnarBatch> {
    private final List<BatchRange> ranges;
    private final TaskGpu gpu;
    private int next;

    Concatenations(List<BatchRange> ranges, TaskGpu gpu) {
      this.ranges = ranges;
      this.gpu = gpu;
    }

    @Override
    public boolean hasNext() {
      return next < ranges.size();
    }

    @Override
    public ColumnarBatch next() {
      if (!hasNext()) throw new NoSuchElementException();
      int first = next;
      long rows = 0;
      long bytes = 0;
      do {
        BatchRange r = ranges.get(next++);
        rows += r.rows();
        bytes += r.batch().deviceBytes() * r.rows() / Math.max(1, r.batch().rowCount());
      } while (next < ranges.size() && rows + ranges.get(next).rows() <= targetRows && bytes < targetBytes);
      gpu.acquireDevice();
      DeviceBatch batch = BatchConcatenator.concatRanges(gpu.backend(), ranges.subList(first, next), gpu.stream());
      readMetrics.apply("recordsRead").add(batch.rowCount());
      return DeviceBatches.wrap(batch, output);
    }
  }

  /** Host batches of the map outputs that went through Spark's shuffle, read by Spark's reader a run at a time. */
  private Iterator<ColumnarBatch> fetchedThroughSpark(List<Integer> mapIndexes, Span span, TaskContext context) {
    if (mapIndexes.isEmpty()) return Collections.emptyIterator();
    List<Iterator<Object>> slices = new ArrayList<>();
    int i = 0;
    while (i < mapIndexes.size()) {
      int start = mapIndexes.get(i);
      int end = start + 1;
      while (++i < mapIndexes.size() && mapIndexes.get(i) == end) end++;
      ShuffleReader<Object, Object> reader = SparkEnv.get().shuffleManager().getReader(dependency.shuffleHandle(),
          start, end, span.startPartition(), span.endPartition(), context, new SQLShuffleReadMetricsReporter(
              context.taskMetrics().createTempShuffleReadMetrics(), readMetrics));
      Iterator<Product2<Object, Object>> records = CollectionConverters.asJava(reader.read());
      slices.add(new Iterator<>() {
        @Override
        public boolean hasNext() {
          return records.hasNext();
        }

        @Override
        public Object next() {
          return records.next()._2();
        }
      });
    }
    Iterator<Object> all = slices.get(0);
    for (int k = 1; k < slices.size(); k++) all = Iterators.concat(all, slices.get(k));
    return sliceReader.apply(all);
  }
}
