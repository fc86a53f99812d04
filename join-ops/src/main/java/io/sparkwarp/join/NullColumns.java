package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import java.util.ArrayList;
import java.util.List;

/** Columns of nothing but nulls: the missing side of an outer join's unmatched rows. */
final class NullColumns {
  private NullColumns() {}

  /** One all-null column of {@code rows} rows per type (strings: empty, offsets all 0). */
  static List<DeviceColumn> of(Backend backend, List<DeviceType> types, int rows, DeviceStream stream) {
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (DeviceType type : types) {
        DeviceColumn c = DeviceColumn.allocate(backend, type, rows, 0, stream);
        columns.add(c);
        backend.fill(c.validity(), 0, c.validity().size(), (byte) 0, stream);
        backend.fill(c.data(), 0, c.data().size(), (byte) 0, stream);
        if (type.isVariableWidth()) backend.fill(c.offsets(), 0, c.offsets().size(), (byte) 0, stream);
      }
      return columns;
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }
}
