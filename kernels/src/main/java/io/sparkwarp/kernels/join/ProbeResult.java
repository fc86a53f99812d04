package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One chunk of a probe's output: {@link #pairCount()} (probe row, build row) pairs in two int32 device arrays (in
 * no particular order), ready for gathering payload columns; where the next chunk resumes; and the lane
 * utilisation the kernel measured. Owns its two arrays.
 */
public final class ProbeResult implements AutoCloseable {
  private final DeviceBuffer probeRows;
  private final DeviceBuffer buildRows;
  private final int pairCount;
  private final ProbePosition next;
  private final boolean last;
  private final ProbeVariant variant;
  private final long activeLanes;
  private final long warpIterations;
  private final AtomicBoolean closed = new AtomicBoolean();

  ProbeResult(DeviceBuffer probeRows, DeviceBuffer buildRows, int pairCount, ProbePosition next, boolean last,
      ProbeVariant variant, long activeLanes, long warpIterations) {
    this.probeRows = probeRows;
    this.buildRows = buildRows;
    this.pairCount = pairCount;
    this.next = next;
    this.last = last;
    this.variant = variant;
    this.activeLanes = activeLanes;
    this.warpIterations = warpIterations;
  }

  /** Probe-side row ids of the pairs, int32 (at least {@link #pairCount()} of them). */
  public DeviceBuffer probeRows() {
    return probeRows;
  }

  /** Build-side row ids of the pairs, int32. */
  public DeviceBuffer buildRows() {
    return buildRows;
  }

  public int pairCount() {
    return pairCount;
  }

  /** Where the next chunk starts. */
  public ProbePosition next() {
    return next;
  }

  /** Whether this chunk reached the end of the batch. */
  public boolean isLast() {
    return last;
  }

  public ProbeVariant variant() {
    return variant;
  }

  /** Active lanes summed over the kernel's warp iterations (0 on the host backend, which has no lanes). */
  public long activeLanes() {
    return activeLanes;
  }

  /** Warp iterations of the kernel's probe loops (0 on the host backend). */
  public long warpIterations() {
    return warpIterations;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      probeRows.close();
      buildRows.close();
    }
  }
}
