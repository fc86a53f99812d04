package io.sparkwarp.kernels.parquet;

/**
 * Corrupt Parquet data found while decompressing or decoding: which block or page (its index in the table handed to
 * the primitive) and why. The scan adds the file, column and row group.
 */
public final class ParquetDataException extends RuntimeException {
  private final int index;
  private final DecodeError error;

  public ParquetDataException(String what, int index, DecodeError error) {
    super(what + " " + index + " is corrupt: " + error.description());
    this.index = index;
    this.error = error;
  }

  /** Index of the block or page in its table. */
  public int index() {
    return index;
  }

  public DecodeError error() {
    return error;
  }
}
