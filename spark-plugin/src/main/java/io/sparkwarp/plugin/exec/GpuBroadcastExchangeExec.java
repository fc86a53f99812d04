package io.sparkwarp.plugin.exec;

import static io.sparkwarp.plugin.Throwables.sneaky;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.plugin.shuffle.ColumnarSlices;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.Statistics;
import org.apache.spark.sql.catalyst.plans.physical.BroadcastMode;
import org.apache.spark.sql.catalyst.plans.physical.BroadcastPartitioning;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.errors.QueryExecutionErrors;
import org.apache.spark.sql.execution.SQLExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec$;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeLike;
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.execution.metric.SQLMetrics$;
import org.apache.spark.sql.types.LongType$;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.map.BytesToBytesMap;
import org.apache.spark.util.SparkFatalException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.concurrent.Promise;
import scala.concurrent.Promise$;
import scala.jdk.javaapi.CollectionConverters;
import scala.math.BigInt;
import scala.reflect.ClassTag$;
import scala.runtime.BoxedUnit;
import scala.util.control.NonFatal;

/**
 * Spark's broadcast exchange for a GPU build side, columnar end to end: each partition's device batches are
 * downloaded once and cut into the compact columnar slices the GPU shuffle writes, collected on the driver and
 * broadcast as one {@link ColumnarBroadcast}; each executor appends the slices into one host batch and uploads it
 * once, shared by the device's tasks while the broadcast lives ({@link BroadcastBuilds}). No row is formed and no
 * HashedRelation built. Only a {@link GpuBroadcastHashJoinExec} reads it (the rewrite keeps Spark's exchange for any
 * other reader).
 *
 * <p>As Spark's BroadcastExchangeExec: the job runs on Spark's broadcast threads with the query's execution id and
 * thread locals, under a job tag so a timeout ({@code spark.sql.broadcastTimeout}) or AQE cancels it; Spark's row
 * and size limits ({@code spark.sql.maxBroadcastTableSize}, on the rows' size as UnsafeRows) fail it with Spark's
 * errors; its metrics are Spark's (data size, rows, collect, build and broadcast times) plus the bytes over PCIe.
 *
 * <p>Written in Java, it implements the Scala trait BroadcastExchangeLike by hand: the trait's val and lazy futures
 * are kept here, as in {@link GpuShuffleExchangeExec}.
 */
public final class GpuBroadcastExchangeExec extends SparkwarpExchange implements BroadcastExchangeLike {
  private static final Logger LOG = LoggerFactory.getLogger(GpuBroadcastExchangeExec.class);
  static final String DATA_SIZE = "dataSize";
  static final String COLLECT_TIME = "collectTime";
  static final String BUILD_TIME = "buildTime";
  static final String BROADCAST_TIME = "broadcastTime";

  private final BroadcastMode mode;
  private final SparkPlan child;
  private final scala.collection.immutable.Map<String, SQLMetric> metrics;

  // BroadcastExchangeLike's state
  private UUID runId;
  private transient Promise<BoxedUnit> triggered;
  private transient scala.concurrent.Future<BoxedUnit> triggeredFuture;
  private transient Future<Object> triggerFuture;

  private transient Promise<Broadcast<Object>> promise;
  private transient Future<Broadcast<Object>> relationFuture;

  public GpuBroadcastExchangeExec(BroadcastMode mode, SparkPlan child) {
    this.mode = mode;
    this.child = child;
    BroadcastExchangeLike.$init$(this);
    Map<String, SQLMetric> all = new LinkedHashMap<>();
    all.put(DATA_SIZE, SQLMetrics.createSizeMetric(child.sparkContext(), "data size (as Spark's rows)", -1));
    all.put(GpuMetrics.OUTPUT_ROWS, SQLMetrics.createMetric(child.sparkContext(), "number of output rows"));
    all.put(GpuMetrics.TRANSFER_BYTES, SQLMetrics.createSizeMetric(child.sparkContext(), "bytes over PCIe", -1));
    all.put(COLLECT_TIME, SQLMetrics.createTimingMetric(child.sparkContext(), "time to collect", -1));
    all.put(BUILD_TIME, SQLMetrics.createTimingMetric(child.sparkContext(), "time to build", -1));
    all.put(BROADCAST_TIME, SQLMetrics.createTimingMetric(child.sparkContext(), "time to broadcast", -1));
    this.metrics = GpuMetrics.toScala(all);
  }

  @Override
  public String nodeName() {
    return "GpuBroadcastExchange";
  }

  public BroadcastMode mode() {
    return mode;
  }

  @Override
  public SparkPlan child() {
    return child;
  }

  @Override
  public Partitioning outputPartitioning() {
    return new BroadcastPartitioning(mode);
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    return metrics;
  }

  @Override
  public Statistics runtimeStatistics() {
    return new Statistics(BigInt.apply(dataSize()),
        Option.apply(BigInt.apply(metrics.apply(GpuMetrics.OUTPUT_ROWS).value())),
        org.apache.spark.sql.catalyst.expressions.AttributeMap$.MODULE$.empty(), false);
  }

  /** The rows' size as Spark's UnsafeRows: the map tasks' figures, merged by the time their job returns. */
  private long dataSize() {
    return Math.max(0, metrics.apply(DATA_SIZE).value());  // no task counted: -1
  }

  @Override
  public synchronized scala.concurrent.Future<Broadcast<Object>> completionFuture() {
    return promise().future();
  }

  private synchronized Promise<Broadcast<Object>> promise() {
    if (promise == null) promise = Promise$.MODULE$.apply();
    return promise;
  }

  /** Spark's limit on a broadcast's rows: a relation not keyed by one long lives in a BytesToBytesMap. */
  private long maxRows() {
    boolean longKey = mode instanceof HashedRelationBroadcastMode hashed && hashed.key().size() == 1
        && hashed.key().head().dataType() == LongType$.MODULE$;
    return mode instanceof HashedRelationBroadcastMode && !longKey ? (long) (BytesToBytesMap.MAX_CAPACITY / 1.5)
        : 512_000_000L;
  }

  @Override
  public synchronized Future<Broadcast<Object>> relationFuture() {
    if (relationFuture == null) {
      relationFuture = SQLExecution.withThreadLocalCaptured(session(), BroadcastExchangeExec$.MODULE$
          .executionContext(), new scala.runtime.AbstractFunction0<>() {
            @Override
            public Broadcast<Object> apply() {
              return collectAndBroadcast();
            }
          });
    }
    return relationFuture;
  }

  /** The job on a broadcast thread: collect the slices, check Spark's limits, broadcast them. */
  private Broadcast<Object> collectAndBroadcast() {
    try {
      // a job tag, so that a timeout or AQE may cancel it
      sparkContext().addJobTag(jobTag());
      sparkContext().setInterruptOnCancel(true);
      long beforeCollect = System.nanoTime();
      byte[][] slices = (byte[][]) downloadSlices().collect();
      long rows = 0;
      for (byte[] slice : slices) rows += ColumnarSlices.rowCount(slice);
      metrics.apply(GpuMetrics.OUTPUT_ROWS).add(rows);
      long maxRows = maxRows();
      if (rows >= maxRows) throw sneaky(QueryExecutionErrors.cannotBroadcastTableOverMaxTableRowsError(maxRows, rows));
      long beforeBuild = System.nanoTime();
      metrics.apply(COLLECT_TIME).add(TimeUnit.NANOSECONDS.toMillis(beforeBuild - beforeCollect));
      long dataSize = dataSize();
      long maxBytes = conf().maxBroadcastTableSizeInBytes();
      if (dataSize >= maxBytes) {
        throw sneaky(QueryExecutionErrors.cannotBroadcastTableOverMaxTableBytesError(maxBytes, dataSize));
      }
      Expression nullAwareKey = mode instanceof HashedRelationBroadcastMode hashed && hashed.isNullAware()
          ? hashed.key().head() : null;
      ColumnarBroadcast value = new ColumnarBroadcast(DataTypeUtils.fromAttributes(child.output()),
          conf().sessionLocalTimeZone(), slices, rows, nullAwareKey);
      long beforeBroadcast = System.nanoTime();
      metrics.apply(BUILD_TIME).add(TimeUnit.NANOSECONDS.toMillis(beforeBroadcast - beforeBuild));
      // kept deserialized on the driver too: a null-aware join reads it there, and it is compact
      Broadcast<Object> broadcast = sparkContext().broadcast(value, ClassTag$.MODULE$.apply(Object.class));
      metrics.apply(BROADCAST_TIME).add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beforeBroadcast));
      // only what the driver counted: the UI adds the map tasks' own figures (data size, PCIe bytes) itself
      String execution = sparkContext().getLocalProperty(SQLExecution.EXECUTION_ID_KEY());
      SQLMetrics$.MODULE$.postDriverMetricUpdates(sparkContext(), execution, CollectionConverters.asScala(
          List.of(GpuMetrics.OUTPUT_ROWS, COLLECT_TIME, BUILD_TIME, BROADCAST_TIME).stream().map(metrics::apply)
              .toList()).toSeq());
      promise().trySuccess(broadcast);
      return broadcast;
    } catch (Throwable t) {
      // as Spark's exchange: fatal errors wrapped so that the waiting thread rethrows them
      Throwable error = t instanceof OutOfMemoryError oom
          ? new SparkFatalException(QueryExecutionErrors.notEnoughMemoryToBuildAndBroadcastTableError(oom,
              CollectionConverters.asScala(List.<org.apache.spark.sql.catalyst.TableIdentifier>of()).toSeq()))
          : NonFatal.apply(t) ? t : new SparkFatalException(t);
      promise().tryFailure(error);
      throw sneaky(error);
    }
  }

  /** One slice per non-empty device batch of the child, downloaded once; the rows' sizes counted as Spark's. */
  private RDD<byte[]> downloadSlices() {
    List<String> names = CollectionConverters.asJava(child.output()).stream().map(Attribute::name).toList();
    SQLMetric dataSize = metrics.apply(DATA_SIZE);
    SQLMetric pcieBytes = metrics.apply(GpuMetrics.TRANSFER_BYTES);
    return Partitions.mapTo(child.executeColumnar(), batches -> {
      TaskGpu gpu = TaskGpu.get();
      return new Iterator<byte[]>() {
        private byte[] next;

        @Override
        public boolean hasNext() {
          while (next == null && batches.hasNext()) next = slice(batches.next(), names, gpu, dataSize, pcieBytes);
          return next != null;
        }

        @Override
        public byte[] next() {
          if (!hasNext()) throw new java.util.NoSuchElementException();
          byte[] slice = next;
          next = null;
          return slice;
        }
      };
    }, byte[].class);
  }

  /** A device batch's rows as one slice (the batch consumed); null for a batch of no rows. */
  private static byte[] slice(ColumnarBatch batch, List<String> names, TaskGpu gpu, SQLMetric dataSize,
      SQLMetric pcieBytes) {
    if (batch.numRows() == 0) {
      batch.close();
      return null;
    }
    DeviceBatches.Downloaded host = DeviceBatches.download(batch, names, gpu);
    try {
      List<FieldVector> columns = host.vectors();
      dataSize.add(SliceWriter.unsafeRowBytes(columns, host.rows()));
      pcieBytes.add(columns.stream().mapToLong(FieldVector::getBufferSize).sum());
      return ColumnarSlices.whole(columns, host.rows());
    } finally {
      Closeables.closeAll(host.vectors());
    }
  }

  @Override
  public void doPrepare() {
    relationFuture();  // starts the job
  }

  @Override
  public RDD<InternalRow> doExecute() {
    throw QueryExecutionErrors.executeCodePathUnsupportedError("GpuBroadcastExchange");
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> Broadcast<T> doExecuteBroadcast() {
    long timeout = conf().broadcastTimeout();
    try {
      return (Broadcast<T>) relationFuture().get(timeout, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      LOG.error("Could not execute broadcast in {} secs.", timeout, e);
      if (!relationFuture().isDone()) {
        sparkContext().cancelJobsWithTag(jobTag(), "The corresponding broadcast query has failed.");
        relationFuture().cancel(true);
      }
      throw sneaky(QueryExecutionErrors.executeBroadcastTimeoutError(timeout, Option.apply(e)));
    } catch (InterruptedException | ExecutionException e) {
      throw sneaky(e);  // as Spark's exchange, which does not unwrap them either
    }
  }

  // ---- BroadcastExchangeLike's state, which a Scala class would get from the compiler

  @Override
  public void org$apache$spark$sql$execution$exchange$BroadcastExchangeLike$_setter_$runId_$eq(UUID id) {
    this.runId = id;
  }

  @Override
  public UUID runId() {
    return runId;
  }

  @Override
  public synchronized Promise<BoxedUnit> org$apache$spark$sql$execution$exchange$BroadcastExchangeLike$$promise() {
    if (triggered == null) {
      triggered = BroadcastExchangeLike.super.org$apache$spark$sql$execution$exchange$BroadcastExchangeLike$$promise();
    }
    return triggered;
  }

  @Override
  public synchronized scala.concurrent.Future<BoxedUnit>
      org$apache$spark$sql$execution$exchange$BroadcastExchangeLike$$scalaFuture() {
    if (triggeredFuture == null) {
      triggeredFuture = BroadcastExchangeLike.super
          .org$apache$spark$sql$execution$exchange$BroadcastExchangeLike$$scalaFuture();
    }
    return triggeredFuture;
  }

  @Override
  public synchronized Future<Object> org$apache$spark$sql$execution$exchange$BroadcastExchangeLike$$triggerFuture() {
    if (triggerFuture == null) {
      triggerFuture = BroadcastExchangeLike.super
          .org$apache$spark$sql$execution$exchange$BroadcastExchangeLike$$triggerFuture();
    }
    return triggerFuture;
  }

  // ---- the tree: what a Scala case class gets from the compiler

  /** As Spark's exchange: the mode's keys canonicalized too, so that equal broadcasts are reused. */
  @Override
  public SparkPlan doCanonicalize() {
    return new GpuBroadcastExchangeExec(mode.canonicalized(), child.canonicalized());
  }

  @Override
  public SparkPlan withNewChildInternal(SparkPlan newChild) {
    return new GpuBroadcastExchangeExec(mode, newChild);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {mode, child};
  }
}
