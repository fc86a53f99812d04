package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The output batches of a join over device batches, whatever found the matches (hash or merge join): pairs gathered
 * from both sides, laid out left then right, and rows of one side alone, as they are for semi and anti joins and
 * beside nulls for outer joins, selected by match bitmaps.
 */
final class JoinOutput {
  private final Backend backend;
  private final JoinType type;
  private final List<DeviceType> leftTypes;
  private final List<DeviceType> rightTypes;
  private final DeviceStream stream;

  JoinOutput(Backend backend, JoinType type, List<DeviceType> leftTypes, List<DeviceType> rightTypes,
      DeviceStream stream) {
    this.backend = backend;
    this.type = type;
    this.leftTypes = List.copyOf(leftTypes);
    this.rightTypes = List.copyOf(rightTypes);
    this.stream = stream;
  }

  /** Rows {@code leftRows[0, count)} of {@code left} beside rows {@code rightRows[0, count)} of {@code right}. */
  DeviceBatch pairs(DeviceBatch left, DeviceBuffer leftRows, DeviceBatch right, DeviceBuffer rightRows, int count) {
    DeviceBatch fromLeft = backend.joins().gather(left, leftRows, count, stream);
    DeviceBatch fromRight;
    try {
      fromRight = backend.joins().gather(right, rightRows, count, stream);
    } catch (RuntimeException e) {
      fromLeft.close();
      throw e;
    }
    return concat(fromLeft.columns(), fromRight.columns(), count);
  }

  /**
   * The rows of {@code batch} (a side's) whose bit in {@code matched} is set when {@code type} keeps matched rows (a
   * semi join), else clear, handed to {@code out} alone or beside nulls (see the class comment).
   */
  void unmatchedOrSemi(DeviceBatch batch, DeviceBuffer matched, JoinType.Side side, Consumer<DeviceBatch> out) {
    if (batch.rowCount() == 0) return;
    singleSided(select(batch, matched, type == JoinType.LEFT_SEMI), side, out);
  }

  /** Rows of one side alone: as they are for semi and anti joins, else beside nulls for the other side. */
  private void singleSided(DeviceBatch rows, JoinType.Side side, Consumer<DeviceBatch> out) {
    if (rows.rowCount() == 0) {
      rows.close();
      return;
    }
    if (!type.outputsRight()) {
      out.accept(rows);
      return;
    }
    List<DeviceColumn> nulls;
    try {
      nulls = NullColumns.of(backend, side == JoinType.Side.LEFT ? rightTypes : leftTypes, rows.rowCount(), stream);
    } catch (RuntimeException e) {
      rows.close();
      throw e;
    }
    out.accept(side == JoinType.Side.LEFT ? concat(rows.columns(), nulls, rows.rowCount())
        : concat(nulls, rows.columns(), rows.rowCount()));
  }

  /** The rows of {@code batch} whose bit in {@code bitmap} is set ({@code wantSet}) or clear, as a new batch. */
  private DeviceBatch select(DeviceBatch batch, DeviceBuffer bitmap, boolean wantSet) {
    int rows = batch.rowCount();
    long bytes = (rows + 7L) / 8;
    try (DeviceColumn flag = DeviceColumn.allocate(backend, DeviceType.BOOLEAN, rows, 0, stream)) {
      backend.fill(flag.validity(), 0, bytes, (byte) 0xff, stream);
      backend.copyDeviceToDevice(bitmap, 0, flag.data(), 0, bytes, stream);
      List<DeviceColumn> columns = new ArrayList<>(batch.columns());
      columns.add(flag);
      // a view: its columns belong to the batch and the flag, so it is never closed itself
      DeviceBatch flagged = new DeviceBatch(columns, rows);
      ExprProgram.Builder program = ExprProgram.builder(types(flagged)).column(columns.size() - 1);
      if (!wantSet) program.not();
      return backend.expressions().filter(program.output().build(), flagged, batch.columnCount(), stream);
    }
  }

  /** A bitmap of {@code rows} clear bits. */
  DeviceBuffer zeroedBitmap(int rows) {
    long bytes = (rows + 7L) / 8;
    DeviceBuffer bitmap = backend.allocate(bytes, stream);
    try {
      backend.fill(bitmap, 0, bytes, (byte) 0, stream);
      return bitmap;
    } catch (RuntimeException e) {
      bitmap.close();
      throw e;
    }
  }

  private static DeviceBatch concat(List<DeviceColumn> left, List<DeviceColumn> right, int rows) {
    List<DeviceColumn> columns = new ArrayList<>(left);
    columns.addAll(right);
    return new DeviceBatch(columns, rows);
  }

  static List<DeviceType> types(DeviceBatch batch) {
    return batch.columns().stream().map(DeviceColumn::type).toList();
  }
}
