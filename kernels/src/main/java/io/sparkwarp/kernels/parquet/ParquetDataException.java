package io.sparkwarp.kernels.parquet;

/**
 * Corrupt Parquet data found while decompressing or decoding: which block or page (its index in the table handed to
 * the primitive), of which column where several were decoded together, and why. The scan adds the file, column and
 * row group.
 */
public final class ParquetDataException extends RuntimeException {
  private final int column;
  private final int index;
  private final DecodeError error;

  public ParquetDataException(String what, int index, DecodeError error) {
    this(what, -1, index, error);
  }

  /** @param column the column's index among those decoded together, or -1 for a compressed block */
  public ParquetDataException(String what, int column, int index, DecodeError error) {
    super(what + " " + index + (column >= 0 ? " of column " + column : "") + " is corrupt: " + error.description());
    this.column = column;
    this.index = index;
    this.error = error;
  }

  /** The same error, of the {@code column}-th of the columns decoded together. */
  public ParquetDataException inColumn(int column) {
    return new ParquetDataException("page", column, index, error);
  }

  /** Index of the column among those decoded together; -1 for a compressed block or a column decoded alone. */
  public int column() {
    return column;
  }

  /** Index of the block or page in its table. */
  public int index() {
    return index;
  }

  public DecodeError error() {
    return error;
  }
}
