package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.aggregate.AggregatePrimitives;
import io.sparkwarp.kernels.expr.ExpressionPrimitives;
import io.sparkwarp.kernels.join.JoinPrimitives;
import io.sparkwarp.kernels.join.MergeJoinPrimitives;
import io.sparkwarp.kernels.join.SharedJoinPrimitives;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.kernels.memory.TransferMemory;
import io.sparkwarp.kernels.parquet.ParquetPrimitives;
import io.sparkwarp.kernels.partition.PartitionPrimitives;
import io.sparkwarp.kernels.primitives.BatchPrimitives;
import io.sparkwarp.kernels.sort.SortPrimitives;
import io.sparkwarp.kernels.sort.TopSelectPrimitives;
import io.sparkwarp.kernels.strings.StringPrimitives;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The reference backend: "device" memory is native host memory and every primitive is a plain Java loop that runs
 * when it is called. It exercises all orchestration code on machines without a GPU and is the oracle GPU tests
 * compare against.
 */
public final class HostBackend implements Backend {
  private final DeviceMemory deviceMemory;
  private final TransferMemory transferMemory;
  private final BatchPrimitives batchPrimitives = new HostBatchPrimitives();
  private final ExpressionPrimitives expressions = new HostExpressionPrimitives(this);
  private final JoinPrimitives joins = new SharedJoinPrimitives(this, new HostJoinKernels(this));
  private final MergeJoinPrimitives mergeJoins = new HostMergeJoinPrimitives();
  private final StringPrimitives strings = new HostStringPrimitives(this);
  private final AggregatePrimitives aggregates = new HostAggregatePrimitives(this);
  private final ParquetPrimitives parquet = new HostParquetPrimitives(this);
  private final PartitionPrimitives partitions = new HostPartitionPrimitives();
  private final SortPrimitives sorts = new HostSortPrimitives();
  private final TopSelectPrimitives topSelect = new HostTopSelectPrimitives();
  private final AtomicBoolean closed = new AtomicBoolean();

  public HostBackend(BackendOptions options) {
    NativeAllocator allocator = new NativeAllocator();
    this.deviceMemory = new DeviceMemory(allocator, "host", options.deviceMemoryLimit());
    this.transferMemory = new TransferMemory(allocator, options.pinnedSlabBytes(), options.pinnedMemoryLimit());
  }

  @Override
  public BackendKind kind() {
    return BackendKind.HOST;
  }

  @Override
  public String description() {
    return "host";
  }

  @Override
  public DeviceMemory deviceMemory() {
    return deviceMemory;
  }

  @Override
  public TransferMemory transferMemory() {
    return transferMemory;
  }

  @Override
  public DeviceStream newStream() {
    return new HostStream();
  }

  @Override
  public void copyHostToDevice(long hostAddress, DeviceBuffer dst, long dstOffset, long bytes, DeviceStream stream) {
    dst.checkRange(dstOffset, bytes);
    if (bytes > 0) MemoryUtil.copyMemory(hostAddress, dst.address() + dstOffset, bytes);
  }

  @Override
  public void copyDeviceToHost(DeviceBuffer src, long srcOffset, long hostAddress, long bytes, DeviceStream stream) {
    src.checkRange(srcOffset, bytes);
    if (bytes > 0) MemoryUtil.copyMemory(src.address() + srcOffset, hostAddress, bytes);
  }

  @Override
  public void copyDeviceToDevice(DeviceBuffer src, long srcOffset, DeviceBuffer dst, long dstOffset, long bytes,
      DeviceStream stream) {
    src.checkRange(srcOffset, bytes);
    dst.checkRange(dstOffset, bytes);
    if (bytes > 0) MemoryUtil.copyMemory(src.address() + srcOffset, dst.address() + dstOffset, bytes);
  }

  /** {@inheritDoc} The simulated devices share the process's memory: a plain copy, when it is called. */
  @Override
  public void copyToPeer(DeviceBuffer src, long srcOffset, Backend peer, DeviceBuffer dst, long dstOffset, long bytes,
      DeviceStream stream) {
    Backend.checkPeerCopyArguments(this, src, srcOffset, peer, dst, dstOffset, bytes);
    if (bytes > 0) MemoryUtil.copyMemory(src.address() + srcOffset, dst.address() + dstOffset, bytes);
  }

  /** {@inheritDoc} Always false: the simulated devices have no link between them to measure. */
  @Override
  public boolean directPeerAccess(Backend peer) {
    return false;
  }

  /** {@inheritDoc} Always, for another host backend: their buffers are all in this process's memory. */
  @Override
  public boolean readsPeerMemory(Backend peer) {
    if (!(peer instanceof HostBackend)) {
      throw new IllegalArgumentException("peer reads asked for between a host backend and a " + peer.kind() + " one");
    }
    return true;
  }

  @Override
  public void fill(DeviceBuffer dst, long offset, long bytes, byte value, DeviceStream stream) {
    dst.checkRange(offset, bytes);
    if (bytes > 0) MemoryUtil.setMemory(dst.address() + offset, bytes, value);
  }

  @Override
  public BatchPrimitives batchPrimitives() {
    return batchPrimitives;
  }

  @Override
  public ExpressionPrimitives expressions() {
    return expressions;
  }

  @Override
  public JoinPrimitives joins() {
    return joins;
  }

  @Override
  public MergeJoinPrimitives mergeJoins() {
    return mergeJoins;
  }

  @Override
  public StringPrimitives strings() {
    return strings;
  }

  @Override
  public AggregatePrimitives aggregates() {
    return aggregates;
  }

  @Override
  public ParquetPrimitives parquet() {
    return parquet;
  }

  @Override
  public PartitionPrimitives partitions() {
    return partitions;
  }

  @Override
  public SortPrimitives sorts() {
    return sorts;
  }

  @Override
  public TopSelectPrimitives topSelect() {
    return topSelect;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) transferMemory.close();
  }
}
