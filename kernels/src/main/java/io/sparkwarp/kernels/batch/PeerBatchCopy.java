package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import java.util.ArrayList;
import java.util.List;

/** A whole device batch copied to another device of the same kind by peer copies, never through the host. */
public final class PeerBatchCopy {
  private PeerBatchCopy() {}

  /**
   * {@code batch}, a batch of {@code source}, copied into a new batch of {@code peer} that the caller owns, allocated
   * on {@code peerStream}. Safe across the two devices' streams without more: the batch's producing work must be
   * issued on {@code sourceStream} (or finished); the copy synchronises the peer's stream after allocating (so the
   * destination exists before the source device writes it) and the source's stream after copying (so the result is
   * complete on return, and the caller may close {@code batch}). Leaves {@code batch} open.
   */
  public static DeviceBatch copy(Backend source, DeviceBatch batch, DeviceStream sourceStream, Backend peer,
      DeviceStream peerStream) {
    int rows = batch.rowCount();
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (DeviceColumn column : batch.columns()) {
        columns.add(DeviceColumn.allocate(peer, column.type(), rows, column.dataBytes(), peerStream));
      }
      peerStream.synchronize();
      for (int i = 0; i < columns.size(); i++) {
        DeviceColumn from = batch.column(i);
        DeviceColumn to = columns.get(i);
        source.copyToPeer(from.validity(), 0, peer, to.validity(), 0, to.validity().size(), sourceStream);
        if (from.type().isVariableWidth()) {
          source.copyToPeer(from.offsets(), 0, peer, to.offsets(), 0, to.offsets().size(), sourceStream);
        }
        source.copyToPeer(from.data(), 0, peer, to.data(), 0, to.dataBytes(), sourceStream);
      }
      sourceStream.synchronize();
      return new DeviceBatch(columns, rows);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }
}
