package io.sparkwarp.kernels.strings;

import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A string column rearranged on the device into {@link StringLayout#PIVOTED} or {@link StringLayout#SELF_PIVOTED}.
 * It refers to the source column for lengths and validity, which must stay open while this is used. Owns its
 * buffers.
 *
 * <p>PIVOTED: group g holds rows 32g..32g+31; {@code starts} (int64, groups + 1) gives each group's byte offset in
 * {@code data}; byte b of row 32g + l lies at {@code starts[g] + ((b / 8) * 32 + l) * 8 + b % 8}; padding is zero.
 *
 * <p>SELF_PIVOTED: row r of length n has segments of {@code w = ceil(n / 32 / 8) * 8} bytes (segment l covers bytes
 * [l w, (l + 1) w) of the string); {@code starts} (int64, rows + 1) gives each row's offset in {@code data}; byte j
 * of segment l lies at {@code starts[r] + ((j / 8) * 32 + l) * 8 + j % 8}; padding is zero.
 */
public final class PivotedStrings implements AutoCloseable {
  private final StringLayout layout;
  private final int rowCount;
  private final DeviceBuffer starts;
  private final DeviceBuffer data;
  private final long dataBytes;
  private final AtomicBoolean closed = new AtomicBoolean();

  public PivotedStrings(StringLayout layout, int rowCount, DeviceBuffer starts, DeviceBuffer data, long dataBytes) {
    if (layout == StringLayout.PLAIN) throw new IllegalArgumentException("the plain layout is the column itself");
    this.layout = layout;
    this.rowCount = rowCount;
    this.starts = starts;
    this.data = data;
    this.dataBytes = dataBytes;
  }

  public StringLayout layout() {
    return layout;
  }

  public int rowCount() {
    return rowCount;
  }

  /** int64 byte offsets into {@link #data()}: per 32-row group (PIVOTED) or per row (SELF_PIVOTED), plus one. */
  public DeviceBuffer starts() {
    return starts;
  }

  public DeviceBuffer data() {
    return data;
  }

  /** Bytes of {@link #data()} in use, padding included. */
  public long dataBytes() {
    return dataBytes;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      starts.close();
      data.close();
    }
  }
}
