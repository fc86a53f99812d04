package io.sparkwarp.parquet;

/** A Parquet file the scan found corrupt or could not read, named with the column and row group where known. */
public final class CorruptParquetException extends RuntimeException {
  public CorruptParquetException(String message, Throwable cause) {
    super(message, cause);
  }
}
