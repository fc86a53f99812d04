package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.join.JoinKeys;
import java.util.ArrayList;
import java.util.List;

/** The key columns of a device batch, by the ordinals of a {@link JoinSpec}. */
final class JoinKeyColumns {
  private JoinKeyColumns() {}

  static JoinKeys of(DeviceBatch batch, int[] ordinals, boolean[] nullSafe) {
    List<DeviceColumn> columns = new ArrayList<>();
    List<Boolean> safe = new ArrayList<>();
    for (int i = 0; i < ordinals.length; i++) {
      columns.add(batch.column(ordinals[i]));
      safe.add(nullSafe[i]);
    }
    return new JoinKeys(columns, safe);
  }
}
