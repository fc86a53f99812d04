package io.sparkwarp.parquet;

/** A file, column or page the device scan cannot read (not corrupt: the CPU reader would read it). */
public final class UnsupportedParquetException extends RuntimeException {
  public UnsupportedParquetException(String message) {
    super(message);
  }
}
