package io.sparkwarp.kernels;

/**
 * An ordered queue of device work: copies, kernels, allocations and frees issued on one stream run in issue order.
 * Host-visible results (downloaded buffers, values read back) are valid only after {@link #synchronize()}.
 */
public interface DeviceStream extends AutoCloseable {
  /** Blocks until everything issued on this stream has finished. */
  void synchronize();

  /** Releases the stream after finishing its work; idempotent. */
  @Override
  void close();
}
