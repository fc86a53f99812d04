package io.sparkwarp.kernels.parquet;

/** Why a compressed block or a page could not be decoded; ordinals are the status words of {@code parquet.cu}. */
public enum DecodeError {
  NONE("no error"),
  TRUNCATED("read past its end"),
  BAD_LEVEL("a definition level above the column's maximum"),
  BAD_INDEX("a dictionary index past the dictionary"),
  BAD_BIT_WIDTH("a bit width above what its encoding allows (32, or 64 for DELTA_BINARY_PACKED)"),
  BAD_LENGTH("a negative length"),
  SIZE_MISMATCH("a size other than the one its header declares"),
  BAD_OFFSET("a back-reference before the start of the output"),
  OVERRUN("output past the size its header declares"),
  BAD_HEADER("an unreadable varint"),
  DICTIONARY("a corrupt dictionary"),
  OVERFLOW("a value out of range once converted (milliseconds to microseconds)"),
  BAD_ENCODING("a page encoding its column's physical type cannot have"),
  BAD_FRAME("a corrupt ZSTD frame (magic number, reserved bits, a table, a stream or a sequence)");

  private final String description;

  DecodeError(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }

  /** The error of a status word. */
  public static DecodeError ofStatus(int status) {
    DecodeError[] all = values();
    return status > 0 && status < all.length ? all[status] : NONE;
  }
}
