// Status words of the Parquet decoders: one per compressed block or page, 0 when it decoded cleanly. The values
// are io.sparkwarp.kernels.parquet.DecodeError's ordinals; the host reference reports the same ones.
#pragma once
#include <cstdint>

namespace sparkwarp {

enum DecodeStatus : int32_t {
  PQ_OK = 0,
  PQ_TRUNCATED = 1,       // a read past the end of the page or block
  PQ_BAD_LEVEL = 2,       // a definition level above the column's maximum
  PQ_BAD_INDEX = 3,       // a dictionary index past the dictionary
  PQ_BAD_BIT_WIDTH = 4,   // a bit width above 32 (RLE hybrid) or 64 (DELTA_BINARY_PACKED)
  PQ_BAD_LENGTH = 5,      // a negative string length
  PQ_SIZE_MISMATCH = 6,   // output size other than the one declared
  PQ_BAD_OFFSET = 7,      // a back-reference before the start of the output
  PQ_OVERRUN = 8,         // output past the declared size
  PQ_BAD_HEADER = 9,      // an unreadable varint
  PQ_DICTIONARY = 10,     // the page's dictionary is itself corrupt
  PQ_OVERFLOW = 11,       // a value out of range once converted (milliseconds to microseconds)
  PQ_BAD_ENCODING = 12,   // a page encoding the column's physical type cannot have
  PQ_BAD_FRAME = 13,      // a corrupt ZSTD frame: bad magic, reserved bits set, a bad table, stream or sequence
};

}  // namespace sparkwarp
