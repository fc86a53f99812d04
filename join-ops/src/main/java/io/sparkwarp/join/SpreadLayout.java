package io.sparkwarp.join;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.join.JoinKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link SpreadHashJoin} carries one side's rows and join keys as one batch through its partitioning and peer
 * copies: the rows' columns first, then each key column that is not one of them. A key that is a column of the rows
 * (a plain attribute, the common case) travels once, as that column, not twice: every byte partitioned, copied and
 * concatenated is paid on every device.
 *
 * @param rowColumns how many of the combined batch's columns are the rows'
 * @param keyColumns for each key, its column in the combined batch
 */
record SpreadLayout(int rowColumns, int[] keyColumns) {
  /**
   * The layout every share of a side can use: a key is carried as a row column where it is that same column (the
   * same object) in every share present, else appended. {@code shares} and {@code keys} as {@link
   * SpreadHashJoin}'s (null where a device holds no share).
   */
  static SpreadLayout common(List<DeviceBatch> shares, List<JoinKeys> keys) {
    int rows = -1;
    int keyCount = -1;
    for (int d = 0; d < shares.size(); d++) {
      if (shares.get(d) == null) continue;
      rows = shares.get(d).columnCount();
      keyCount = keys.get(d).columns().size();
    }
    if (rows < 0) throw new IllegalArgumentException("no device holds a share of the input");
    int[] keyColumns = new int[keyCount];
    int appended = rows;
    for (int k = 0; k < keyCount; k++) {
      int shared = -1;
      boolean first = true;
      for (int d = 0; d < shares.size(); d++) {
        if (shares.get(d) == null) continue;
        int own = shares.get(d).columns().indexOf(keys.get(d).columns().get(k));
        shared = first || own == shared ? own : -1;
        first = false;
      }
      keyColumns[k] = shared >= 0 ? shared : appended++;
    }
    return new SpreadLayout(rows, keyColumns);
  }

  /** A view of {@code batch} with the appended keys: shares both's columns, never closed itself. */
  DeviceBatch combine(DeviceBatch batch, JoinKeys keys) {
    List<DeviceColumn> columns = new ArrayList<>(batch.columns());
    for (int k = 0; k < keyColumns.length; k++) {
      if (keyColumns[k] >= rowColumns) columns.add(keys.columns().get(k));
    }
    return new DeviceBatch(columns, batch.rowCount());
  }

  /** The rows of a combined batch: a view sharing its first columns, never closed itself. */
  DeviceBatch rows(DeviceBatch combined) {
    return new DeviceBatch(combined.columns().subList(0, rowColumns), combined.rowCount());
  }

  /** The join keys of a combined batch (its columns, shared). */
  JoinKeys keys(DeviceBatch combined, List<Boolean> nullSafe) {
    List<DeviceColumn> keys = new ArrayList<>();
    for (int column : keyColumns) keys.add(combined.column(column));
    return new JoinKeys(keys, nullSafe);
  }
}
