package io.sparkwarp.kernels;

import io.sparkwarp.kernels.aggregate.AggregatePrimitives;
import io.sparkwarp.kernels.expr.ExpressionPrimitives;
import io.sparkwarp.kernels.join.JoinPrimitives;
import io.sparkwarp.kernels.join.MergeJoinPrimitives;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.kernels.memory.TransferMemory;
import io.sparkwarp.kernels.parquet.ParquetPrimitives;
import io.sparkwarp.kernels.partition.PartitionPrimitives;
import io.sparkwarp.kernels.primitives.BatchPrimitives;
import io.sparkwarp.kernels.sort.SortPrimitives;
import io.sparkwarp.kernels.sort.TopSelectPrimitives;
import io.sparkwarp.kernels.strings.StringPrimitives;

/**
 * Everything above the kernels talks to a device through this: memory, streams, copies and the kernel-level
 * primitives. Two implementations share all orchestration code: CUDA on a GPU, and plain Java over host memory
 * (the reference the GPU is tested against, and what CI runs).
 *
 * <p>Work is asynchronous on the stream it is issued on; host addresses handed to copies must stay valid until the
 * stream is synchronised. Thread-safe: tasks share one backend per device and each uses its own streams.
 */
public interface Backend extends AutoCloseable {
  BackendKind kind();

  /** For logs and errors: "cuda:0 NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)" or "host". */
  String description();

  DeviceMemory deviceMemory();

  /** The host memory transfers go through, and the Arrow allocator over it. */
  TransferMemory transferMemory();

  DeviceStream newStream();

  /** Shorthand for {@code deviceMemory().allocate(bytes, stream)}. */
  default DeviceBuffer allocate(long bytes, DeviceStream stream) {
    return deviceMemory().allocate(bytes, stream);
  }

  /**
   * Copies host bytes to the device. Memory of {@link #transferMemory()} is copied by DMA at the full link rate; any
   * other address is correct but several times slower (the driver stages it): keep hot paths on transfer memory.
   */
  void copyHostToDevice(long hostAddress, DeviceBuffer dst, long dstOffset, long bytes, DeviceStream stream);

  /** Copies device bytes to the host, like {@link #copyHostToDevice} in reverse. */
  void copyDeviceToHost(DeviceBuffer src, long srcOffset, long hostAddress, long bytes, DeviceStream stream);

  void copyDeviceToDevice(DeviceBuffer src, long srcOffset, DeviceBuffer dst, long dstOffset, long bytes,
      DeviceStream stream);

  /**
   * Copies device bytes of this backend into a buffer of {@code peer}, another device of the same kind, device to
   * device (over NVLink or PCIe peer to peer where the pair has {@link #directPeerAccess direct access}, else staged
   * by the driver), never through memory the caller sees. Issued on {@code stream}, a stream of this backend.
   *
   * <p>Ordering across the two devices is the caller's: the work that produces {@code src} must be issued on
   * {@code stream} or finished, and {@code dst}'s allocation and every earlier use of it on the peer's streams must
   * have finished (synchronise the peer's stream first); the peer may read {@code dst} once {@code stream} is
   * synchronised. {@link io.sparkwarp.kernels.batch.PeerBatchCopy} does all of that for a whole batch.
   *
   * @throws IllegalArgumentException when the peer is of another kind, or a buffer is not of its backend
   */
  void copyToPeer(DeviceBuffer src, long srcOffset, Backend peer, DeviceBuffer dst, long dstOffset, long bytes,
      DeviceStream stream);

  /**
   * Whether copies from this backend to {@code peer} go directly between the two devices (CUDA peer access, over
   * NVLink or PCIe) rather than staged through host memory. Enables that access on the first call for the pair.
   */
  boolean directPeerAccess(Backend peer);

  /**
   * Whether this backend's kernels and copies may take buffers of {@code peer}, another device of the same kind, as
   * their input as if they were its own: reads over NVLink or PCIe where CUDA peer access is on (enabled on the first
   * call for the pair, as {@link #directPeerAccess}); the host backend's simulated devices share one address space.
   */
  boolean readsPeerMemory(Backend peer);

  /** Sets {@code bytes} bytes from {@code offset} to {@code value}. */
  void fill(DeviceBuffer dst, long offset, long bytes, byte value, DeviceStream stream);

  BatchPrimitives batchPrimitives();

  /** Evaluation of compiled expression programs: projections and filters. */
  ExpressionPrimitives expressions();

  /** Hash join builds, chunked probes and payload gathers. */
  JoinPrimitives joins();

  /** Match ranges and their merge-path expansion for sort-merge joins. */
  MergeJoinPrimitives mergeJoins();

  /** String predicates: pivoted layouts and compiled matchers. */
  StringPrimitives strings();

  /** Group-by aggregation. */
  AggregatePrimitives aggregates();
  /** Parquet pages: batched decompression and decoding into device columns. */
  ParquetPrimitives parquet();

  /** Spark's hash partitioning of device rows (the GPU shuffle's map side). */
  PartitionPrimitives partitions();

  /** Digit passes of the device sort, in Spark's order ({@code io.sparkwarp.kernels.sort.DeviceSort}). */
  SortPrimitives sorts();

  /** The selection before a top-N's sort ({@code io.sparkwarp.kernels.sort.TopSelect}). */
  TopSelectPrimitives topSelect();

  /** The argument checks both backends make before {@link #copyToPeer}. */
  static void checkPeerCopyArguments(Backend source, DeviceBuffer src, long srcOffset, Backend peer, DeviceBuffer dst,
      long dstOffset, long bytes) {
    if (peer.kind() != source.kind()) {
      throw new IllegalArgumentException("a peer copy from a " + source.kind() + " backend to a " + peer.kind()
          + " one: peers must be of the same kind");
    }
    if (!src.isOf(source.deviceMemory())) {
      throw new IllegalArgumentException("the source of a peer copy is not memory of " + source.description());
    }
    if (!dst.isOf(peer.deviceMemory())) {
      throw new IllegalArgumentException("the destination of a peer copy is not memory of " + peer.description());
    }
    src.checkRange(srcOffset, bytes);
    dst.checkRange(dstOffset, bytes);
  }

  /** Frees the backend's pools and context; buffers still open are invalid afterwards. */
  @Override
  void close();
}
