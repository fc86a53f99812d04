package io.sparkwarp.parquet;

/** A column chunk whose page headers, sizes or checksums are wrong; the reader adds file, column and row group. */
final class CorruptChunkException extends RuntimeException {
  CorruptChunkException(String message) {
    super(message);
  }
}
