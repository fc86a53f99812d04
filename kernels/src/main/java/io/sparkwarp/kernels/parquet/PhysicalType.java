package io.sparkwarp.kernels.parquet;

/** Parquet's physical types the device decodes (ordinals shared with {@code parquet.cu}). */
public enum PhysicalType {
  BOOLEAN, INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY;

  /** Bytes of one PLAIN value: 0 for bit-packed booleans and variable-length byte arrays. */
  public int width(int typeLength) {
    return switch (this) {
      case INT32, FLOAT -> 4;
      case INT64, DOUBLE -> 8;
      case FIXED_LEN_BYTE_ARRAY -> typeLength;
      case BOOLEAN, BYTE_ARRAY -> 0;
    };
  }
}
