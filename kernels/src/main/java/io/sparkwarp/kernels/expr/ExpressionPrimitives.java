package io.sparkwarp.kernels.expr;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import java.util.List;

/**
 * Evaluates {@link ExprProgram}s over device batches: one launch computes every output of a projection, and a
 * filter keeps the rows whose predicate is true, compacted on the device. CUDA: {@code expr.cu}, {@code scan.cu},
 * {@code select.cu}.
 *
 * <p>Both methods leave {@code input} open and hand the caller new columns it owns. They synchronise the stream
 * (to read back the error flag, and for a filter the number of rows kept).
 */
public interface ExpressionPrimitives {
  /**
   * The program's outputs over every row of {@code input}: computed columns in one launch, pass-through columns as
   * copies.
   *
   * @throws ExpressionErrorException for the lowest row that raised an error (nothing is left allocated)
   * @throws IllegalArgumentException when the batch's column types are not the program's input types
   */
  List<DeviceColumn> project(ExprProgram program, DeviceBatch input, DeviceStream stream);

  /**
   * The rows of {@code input} for which {@code predicate}, a program with one computed boolean output, is true (null
   * counts as false), in their order, as a new batch of all of {@code input}'s columns.
   *
   * @throws ExpressionErrorException for the lowest row that raised an error (nothing is left allocated)
   * @throws IllegalArgumentException when the batch does not match the program, or the program is no predicate
   */
  default DeviceBatch filter(ExprProgram predicate, DeviceBatch input, DeviceStream stream) {
    return filter(predicate, input, input.columnCount(), stream);
  }

  /**
   * Like {@link #filter(ExprProgram, DeviceBatch, DeviceStream)}, keeping only {@code input}'s first {@code
   * keptColumns} columns: the others are inputs of the predicate alone (match columns, flags) and are not gathered.
   *
   * @throws IllegalArgumentException also when {@code keptColumns} is not in [0, input.columnCount()]
   */
  DeviceBatch filter(ExprProgram predicate, DeviceBatch input, int keptColumns, DeviceStream stream);

  /** {@code input}'s first {@code keptColumns} columns: a view, never closed itself (the columns are input's). */
  static DeviceBatch keptColumns(DeviceBatch input, int keptColumns) {
    if (keptColumns < 0 || keptColumns > input.columnCount()) {
      throw new IllegalArgumentException("cannot keep " + keptColumns + " of " + input.columnCount() + " columns");
    }
    return new DeviceBatch(input.columns().subList(0, keptColumns), input.rowCount());
  }
}
