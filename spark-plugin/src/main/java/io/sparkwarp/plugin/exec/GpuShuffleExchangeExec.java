package io.sparkwarp.plugin.exec;

import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.shuffle.ColumnarShuffleSerializer;
import io.sparkwarp.plugin.shuffle.DeviceShuffleStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.MapOutputStatistics;
import org.apache.spark.PartitionIdPassthrough;
import org.apache.spark.Partitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection$;
import org.apache.spark.sql.catalyst.plans.logical.Statistics;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning;
import org.apache.spark.sql.catalyst.plans.physical.RoundRobinPartitioning;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.ShufflePartitionSpec;
import org.apache.spark.sql.execution.ShuffledRowRDD;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SQLExecution;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.ShuffleQueryStageExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import org.apache.spark.shuffle.ShuffleWriteProcessor;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec$;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike;
import org.apache.spark.sql.execution.exchange.ShuffleOrigin;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.execution.metric.SQLMetrics$;
import org.apache.spark.sql.execution.metric.SQLShuffleReadMetricsReporter$;
import org.apache.spark.sql.execution.metric.SQLShuffleWriteMetricsReporter$;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Option;
import scala.Product2;
import scala.collection.immutable.Seq;
import scala.concurrent.Future;
import scala.concurrent.Future$;
import scala.concurrent.Promise;
import scala.jdk.javaapi.CollectionConverters;
import scala.math.BigInt;
import scala.reflect.ClassTag$;

/**
 * Spark's shuffle exchange for a GPU stage, columnar end to end: each device batch is downloaded once, its rows get
 * Spark's own partition ids (so GPU- and CPU-shuffled sides and bucketed tables agree; range bounds are sampled as
 * Spark samples them; round-robin starts where Spark's starts in each map task), and each partition's rows go
 * through Spark's shuffle (block manager, compression, external shuffle service, AQE) as one compact columnar slice.
 * The reduce side appends the slices it reads into large Arrow batches on the host, which the next GPU operator
 * uploads at once and a CPU operator reads through Spark's ColumnarToRowExec: no rows are formed on either side.
 * In local mode with one GPU the map output stays on the device instead ({@link DeviceShuffleWriteProcessor},
 * {@link DeviceShuffleStore}) and the next GPU operator reads it there ({@link #readOnDevice}): then a shuffled byte
 * crosses PCIe only if a CPU operator reads it.
 *
 * <p>Written in Java, it implements the Scala trait ShuffleExchangeLike by hand: the trait's state (its vals, its
 * flag and its lazy futures, which Scala classes get as compiler-made fields) is kept here.
 */
public final class GpuShuffleExchangeExec extends SparkwarpExchange implements ShuffleExchangeLike {
  static final String DATA_SIZE = "dataSize";
  static final String NUM_PARTITIONS = "numPartitions";
  static final String PARTITION_TIME = "partitionTime";

  private final Partitioning outputPartitioning;
  private final SparkPlan child;
  private final ShuffleOrigin shuffleOrigin;
  private final Option<Object> advisoryPartitionSize;
  private final scala.collection.immutable.Map<String, SQLMetric> writeMetrics;
  private final scala.collection.immutable.Map<String, SQLMetric> readMetrics;
  private final scala.collection.immutable.Map<String, SQLMetric> metrics;

  // ShuffleExchangeLike's state
  private transient java.util.concurrent.atomic.AtomicReference<Option<org.apache.spark.FutureAction<MapOutputStatistics>>>
      futureAction;
  private transient boolean cancelled;
  private transient Promise<MapOutputStatistics> promise;
  private transient Future<MapOutputStatistics> completionFuture;
  private transient java.util.concurrent.Future<Object> triggerFuture;

  private transient ShuffleDependency<Object, Object, Object> dependency;
  private transient Future<MapOutputStatistics> mapOutputStatistics;
  private transient RDD<ColumnarBatch> cachedRead;
  /** Whether map output may stay on the device; set with the dependency. */
  private transient boolean keepOnDevice;

  public GpuShuffleExchangeExec(Partitioning outputPartitioning, SparkPlan child, ShuffleOrigin shuffleOrigin,
      Option<Object> advisoryPartitionSize) {
    this.outputPartitioning = outputPartitioning;
    this.child = child;
    this.shuffleOrigin = shuffleOrigin;
    this.advisoryPartitionSize = advisoryPartitionSize;
    ShuffleExchangeLike.$init$(this);
    this.writeMetrics = SQLShuffleWriteMetricsReporter$.MODULE$.createShuffleWriteMetrics(child.sparkContext());
    this.readMetrics = SQLShuffleReadMetricsReporter$.MODULE$.createShuffleReadMetrics(child.sparkContext());
    Map<String, SQLMetric> all = new LinkedHashMap<>();
    all.put(DATA_SIZE, SQLMetrics.createSizeMetric(child.sparkContext(), "data size (as Spark's rows)", -1));
    all.put(GpuMetrics.TRANSFER_BYTES, SQLMetrics.createSizeMetric(child.sparkContext(), "bytes over PCIe", -1));
    all.put(NUM_PARTITIONS, SQLMetrics.createMetric(child.sparkContext(), "number of partitions"));
    all.put(GpuMetrics.OUTPUT_ROWS, SQLMetrics.createMetric(child.sparkContext(), "number of output rows"));
    all.put(PARTITION_TIME, SQLMetrics.createNanoTimingMetric(child.sparkContext(),
        "time downloading and partitioning", -1));
    GpuMetrics.retries(all, child.sparkContext());
    all.putAll(CollectionConverters.asJava(readMetrics));
    all.putAll(CollectionConverters.asJava(writeMetrics));
    this.metrics = GpuMetrics.toScala(all);
  }

  /** Why a GPU stage's rows cannot be shuffled here by {@code partitioning}; empty when they can. */
  public static java.util.Optional<String> whyNot(Partitioning partitioning, Seq<Attribute> childOutput) {
    return SliceWriter.whyNot(partitioning, childOutput);
  }

  @Override
  public String nodeName() {
    return "GpuShuffleExchange";
  }

  @Override
  public SparkPlan child() {
    return child;
  }

  @Override
  public Partitioning outputPartitioning() {
    return outputPartitioning;
  }

  @Override
  public ShuffleOrigin shuffleOrigin() {
    return shuffleOrigin;
  }

  @Override
  public Option<Object> advisoryPartitionSize() {
    return advisoryPartitionSize;
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    return metrics;
  }

  /** Host Arrow batches; as rows too, so that Spark may read it as a stage's row output (see doExecute). */
  @Override
  public boolean supportsColumnar() {
    return true;
  }

  @Override
  public boolean supportsRowBased() {
    return true;
  }

  // ---- the map side

  @SuppressWarnings({"unchecked", "rawtypes"})
  private synchronized ShuffleDependency<Object, Object, Object> shuffleDependency() {
    if (dependency == null) {
      List<String> names = CollectionConverters.asJava(child.output()).stream().map(Attribute::name).toList();
      RDD<ColumnarBatch> input = child.executeColumnar();
      // range bounds are sampled from the input first, as Spark's RangePartitioner does (a job of its own)
      RangeBounds ranges = outputPartitioning instanceof RangePartitioning range ? RangeBounds.sample(input, range,
          CollectionConverters.asJava(child.output()), conf().sessionLocalTimeZone()) : null;
      SliceWriter writer = SliceWriter.of(outputPartitioning, child.output(), names, ranges,
          new SliceWriter.Metrics(metrics.apply(PARTITION_TIME), metrics.apply(DATA_SIZE),
              metrics.apply(GpuMetrics.OUTPUT_ROWS), metrics.apply(GpuMetrics.TRANSFER_BYTES),
              new RetryMetrics(getClass().getSimpleName(), metrics.apply(GpuMetrics.RETRIES),
                  metrics.apply(GpuMetrics.SPLIT_BATCHES))));
      WarpConf warp = WarpConf.of(conf());
      keepOnDevice = warp.get(WarpConf.SHUFFLE_DEVICE_STORE) && sparkContext().isLocal();
      ShuffleWriteProcessor spark = ShuffleExchangeExec$.MODULE$.createShuffleWriteProcessor(writeMetrics);
      // round-robin placement follows the input's order (SliceWriter says why that is not sorted away)
      boolean orderSensitive = outputPartitioning instanceof RoundRobinPartitioning;
      RDD records;
      ShuffleWriteProcessor processor;
      if (keepOnDevice) {  // the processor partitions the device batches itself
        records = orderSensitive ? Partitions.mapToOrderSensitive(input, batches -> batches, ColumnarBatch.class)
            : input;
        processor = new DeviceShuffleWriteProcessor(spark, writer, warp.get(WarpConf.SHUFFLE_DEVICE_STORE_BYTES));
      } else {
        records = orderSensitive ? Partitions.mapToOrderSensitive(input, writer::records, Product2.class)
            : Partitions.mapTo(input, writer::records, Product2.class);
        processor = spark;
      }
      int n = outputPartitioning.numPartitions();
      Partitioner partitioner = new PartitionIdPassthrough(n);  // the records' keys are their partition ids
      dependency = new ShuffleDependency<>(records, partitioner, new ColumnarShuffleSerializer(), Option.empty(),
          Option.empty(), false, processor, ClassTag$.MODULE$.Int(), ClassTag$.MODULE$.apply(byte[].class),
          ClassTag$.MODULE$.apply(byte[].class));
      String execution = sparkContext().getLocalProperty(SQLExecution.EXECUTION_ID_KEY());
      if (keepOnDevice) DeviceShuffleStore.get().planned(sparkContext(), dependency.shuffleId(), execution);
      SQLMetric partitions = metrics.apply(NUM_PARTITIONS);
      partitions.set(n);
      SQLMetrics$.MODULE$.postDriverMetricUpdates(sparkContext(), execution,
          CollectionConverters.asScala(List.of(partitions)).toList());
    }
    return dependency;
  }

  @Override
  public synchronized Future<MapOutputStatistics> mapOutputStatisticsFuture() {
    if (mapOutputStatistics == null) {
      ShuffleDependency<Object, Object, Object> dep = shuffleDependency();
      mapOutputStatistics = dep.rdd().getNumPartitions() == 0 ? Future$.MODULE$.successful(null)
          : sparkContext().submitMapStage(dep);
    }
    return mapOutputStatistics;
  }

  @Override
  public int numMappers() {
    return shuffleDependency().rdd().getNumPartitions();
  }

  @Override
  public int numPartitions() {
    return shuffleDependency().partitioner().numPartitions();
  }

  @Override
  public int shuffleId() {
    return shuffleDependency().shuffleId();
  }

  /** Spark's statistics: its rows' size (estimated from the columns, so AQE decides as it would) and the rows. */
  @Override
  public Statistics runtimeStatistics() {
    return new Statistics(BigInt.apply(metrics.apply(DATA_SIZE).value()),
        Option.apply(BigInt.apply(metrics.apply(GpuMetrics.OUTPUT_ROWS).value())),
        org.apache.spark.sql.catalyst.expressions.AttributeMap$.MODULE$.empty(), false);
  }

  // ---- the reduce side

  @Override
  public RDD<?> getShuffleRDD(ShufflePartitionSpec[] partitionSpecs) {
    ShuffleDependency<Object, Object, Object> dep = shuffleDependency();
    return keepOnDevice ? deviceRead(partitionSpecs, null)
        : readBatches(new ShuffledRowRDD(rowTyped(dep), readMetrics, partitionSpecs));
  }

  @Override
  public synchronized RDD<ColumnarBatch> doExecuteColumnar() {
    if (cachedRead == null) {
      ShuffleDependency<Object, Object, Object> dep = shuffleDependency();
      cachedRead = keepOnDevice ? deviceRead(null, null)
          : readBatches(new ShuffledRowRDD(rowTyped(dep), readMetrics));
    }
    return cachedRead;
  }

  /**
   * The shuffle's output as device batches for a GPU operator ({@code upload} turns what went through Spark's
   * shuffle into them) or, without {@code upload}, as host batches; {@code specs} null for one partition per
   * reducer. Only for an exchange that {@link #keepsOutputOnDevice()}.
   */
  RDD<ColumnarBatch> deviceRead(ShufflePartitionSpec[] specs, Partitions.BatchFunction<ColumnarBatch> upload) {
    ShuffleDependency<Object, Object, Object> dep = shuffleDependency();
    if (!keepOnDevice) throw new IllegalStateException("this exchange's output goes through Spark's shuffle");
    WarpConf warp = WarpConf.of(conf());
    return new DeviceShuffleRDD(dep, specs != null ? specs : DeviceShuffleRDD.eachPartition(numPartitions()),
        sliceReader(), readMetrics, upload, CollectionConverters.asJava(output()),
        metrics.apply(GpuMetrics.TRANSFER_BYTES), warp.get(WarpConf.BATCH_ROWS), warp.get(WarpConf.BATCH_BYTES));
  }

  /** Whether map output may stay on the device ({@link DeviceShuffleStore}); plans the map side if not yet. */
  boolean keepsOutputOnDevice() {
    shuffleDependency();
    return keepOnDevice;
  }

  /**
   * The device batches of a read of a GPU exchange whose output may be on the device, if {@code plan} is one (the
   * exchange itself, its query stage, reused, or adaptive execution's read of a stage with its partition specs).
   */
  static java.util.Optional<RDD<ColumnarBatch>> readOnDevice(SparkPlan plan,
      Partitions.BatchFunction<ColumnarBatch> upload) {
    ShufflePartitionSpec[] specs = plan instanceof AQEShuffleReadExec read
        ? CollectionConverters.asJava(read.partitionSpecs()).toArray(ShufflePartitionSpec[]::new) : null;
    return readOf(plan).filter(GpuShuffleExchangeExec::keepsOutputOnDevice)
        .map(exchange -> exchange.deviceRead(specs, upload));
  }

  /**
   * The GPU exchange {@code plan} reads, if it reads one: the exchange itself, its query stage, reused, or adaptive
   * execution's read of a stage.
   */
  public static java.util.Optional<GpuShuffleExchangeExec> readOf(SparkPlan plan) {
    SparkPlan source = plan instanceof AQEShuffleReadExec read ? read.child() : plan;
    if (source instanceof ShuffleQueryStageExec stage) source = (SparkPlan) stage.shuffle();
    if (source instanceof ReusedExchangeExec reused) source = reused.child();
    return source instanceof GpuShuffleExchangeExec exchange ? java.util.Optional.of(exchange)
        : java.util.Optional.empty();
  }

  /**
   * Spark's ShuffledRowRDD reads any shuffle's values (it handles every kind of AQE partition spec); its "rows"
   * are this shuffle's slices, which only {@link SliceReader} looks at.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static ShuffleDependency<Object, InternalRow, InternalRow> rowTyped(ShuffleDependency<?, ?, ?> dep) {
    return (ShuffleDependency) dep;
  }

  private RDD<ColumnarBatch> readBatches(ShuffledRowRDD slices) {
    @SuppressWarnings({"unchecked", "rawtypes"})
    RDD<Object> values = (RDD) slices;
    return Partitions.mapTo(values, sliceReader(), ColumnarBatch.class);
  }

  private SliceReader sliceReader() {
    WarpConf warp = WarpConf.of(conf());
    return new SliceReader(DataTypeUtils.fromAttributes(output()), conf().sessionLocalTimeZone(),
        warp.get(WarpConf.BATCH_ROWS), warp.get(WarpConf.BATCH_BYTES));
  }

  /** Rows for a row-based parent (Spark reads a stage's output as rows where no GPU operator takes it). */
  @Override
  public RDD<InternalRow> doExecute() {
    StructType schema = DataTypeUtils.fromAttributes(output());
    return Partitions.mapTo(executeColumnar(), batches -> {
      UnsafeProjection toUnsafe = UnsafeProjection$.MODULE$.create(schema);
      return new java.util.Iterator<InternalRow>() {
        private java.util.Iterator<InternalRow> rows = java.util.Collections.emptyIterator();

        @Override
        public boolean hasNext() {
          while (!rows.hasNext() && batches.hasNext()) rows = batches.next().rowIterator();
          return rows.hasNext();
        }

        @Override
        public InternalRow next() {
          if (!hasNext()) throw new java.util.NoSuchElementException();
          return toUnsafe.apply(rows.next());
        }
      };
    }, InternalRow.class);
  }

  // ---- ShuffleExchangeLike's state, which a Scala class would get from the compiler

  @Override
  public void org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$_setter_$futureAction_$eq(
      java.util.concurrent.atomic.AtomicReference<Option<org.apache.spark.FutureAction<MapOutputStatistics>>> ref) {
    this.futureAction = ref;
  }

  @Override
  public java.util.concurrent.atomic.AtomicReference<Option<org.apache.spark.FutureAction<MapOutputStatistics>>>
      futureAction() {
    return futureAction;
  }

  @Override
  public boolean org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$isCancelled() {
    return cancelled;
  }

  @Override
  public void org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$isCancelled_$eq(boolean value) {
    cancelled = value;
  }

  @Override
  public synchronized Promise<MapOutputStatistics> org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$promise() {
    if (promise == null) promise = ShuffleExchangeLike.super.org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$promise();
    return promise;
  }

  @Override
  public synchronized Future<MapOutputStatistics>
      org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$completionFuture() {
    if (completionFuture == null) {
      completionFuture = ShuffleExchangeLike.super
          .org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$completionFuture();
    }
    return completionFuture;
  }

  @Override
  public synchronized java.util.concurrent.Future<Object>
      org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$triggerFuture() {
    if (triggerFuture == null) {
      triggerFuture = ShuffleExchangeLike.super
          .org$apache$spark$sql$execution$exchange$ShuffleExchangeLike$$triggerFuture();
    }
    return triggerFuture;
  }

  // ---- the tree: what a Scala case class gets from the compiler

  @Override
  public SparkPlan withNewChildInternal(SparkPlan newChild) {
    return new GpuShuffleExchangeExec(outputPartitioning, newChild, shuffleOrigin, advisoryPartitionSize);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {outputPartitioning, child, shuffleOrigin, advisoryPartitionSize};
  }
}
