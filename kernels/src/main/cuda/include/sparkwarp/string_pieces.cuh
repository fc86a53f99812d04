// A string read as 8-byte pieces, whatever its layout (Sitaridi's register unit for Pivot-8): piece k is bytes
// [8k, 8k + 8) of the string as one little-endian word, byte 8k in the low byte. Matchers consume the same words from
// every layout; bytes past the string's end are unspecified (plain) or zero (pivoted layouts), so every use is
// bounded by the string's length. The pivoted layouts are io.sparkwarp.kernels.strings.PivotedStrings.
#pragma once
#include <cstdint>

namespace sparkwarp {

constexpr int PIECE_BYTES = 8;
// A warp's 32 lanes each holding one 8-byte piece: the unit the pivoted layouts interleave.
constexpr int PIVOT_ROW_BYTES = 32 * PIECE_BYTES;

// Mask of the bytes [lo, hi) of a piece, 0 <= lo <= hi <= 8.
__device__ __forceinline__ uint64_t piece_byte_mask(int lo, int hi) {
  const uint64_t upto_hi = hi >= 8 ? ~0ull : (1ull << (8 * hi)) - 1;
  const uint64_t below_lo = lo >= 8 ? ~0ull : (1ull << (8 * lo)) - 1;
  return upto_hi & ~below_lo;
}

// A row of an Arrow string column read in place. Rows start at any byte, so a piece is cut from the two aligned words
// it straddles. The data buffer is 8-byte aligned and padded to whole words (DeviceMemory), so every aligned word that
// holds a byte of the column is readable; the second word is read only when the string reaches into it. The word
// read last is kept, so a sequential scan loads each word once.
struct PlainPieces {
  const uint64_t* words;  // the column's bytes as aligned words
  int64_t begin;          // byte offset of the row in the column
  int64_t end;            // one past its last byte
  int64_t cached_index;
  uint64_t cached;

  PlainPieces() = default;

  __device__ __forceinline__ PlainPieces(const uint8_t* data, int64_t begin, int64_t end)
      : words(reinterpret_cast<const uint64_t*>(data)), begin(begin), end(end), cached_index(-1), cached(0) {}

  __device__ __forceinline__ uint64_t word(int64_t i) {
    if (i != cached_index) {
      cached = __ldg(reinterpret_cast<const unsigned long long*>(words + i));
      cached_index = i;
    }
    return cached;
  }

  // Piece k; 8k must lie inside the string.
  __device__ __forceinline__ uint64_t piece(int32_t k) {
    const int64_t at = begin + static_cast<int64_t>(k) * PIECE_BYTES;
    const int64_t w = at >> 3;
    const int shift = static_cast<int>(at & 7) * 8;
    const uint64_t lo = word(w);
    if (shift == 0) return lo;
    const uint64_t hi = (w + 1) * PIECE_BYTES < end ? word(w + 1) : 0;
    return (lo >> shift) | (hi << (64 - shift));
  }
};

// A row of a PIVOTED column: row 32g + l's piece k is word k * 32 + l of group g, so the 32 lanes of a warp reading
// piece k of their rows read 256 contiguous bytes.
struct PivotedPieces {
  const uint64_t* first;  // the row's piece 0

  PivotedPieces() = default;

  // Row `row` of the layout whose group starts (bytes, multiples of 256) are `starts`.
  __device__ __forceinline__ PivotedPieces(const uint8_t* data, const int64_t* starts, int64_t row)
      : first(reinterpret_cast<const uint64_t*>(data + starts[row >> 5]) + (row & 31)) {}

  __device__ __forceinline__ uint64_t piece(int32_t k) const {
    return __ldg(reinterpret_cast<const unsigned long long*>(first + static_cast<int64_t>(k) * 32));
  }
};

// A row of a SELF_PIVOTED column: the string in 32 segments of `segment_pieces` pieces each (segment s covers bytes
// [s w, (s + 1) w), w = 8 segment_pieces); piece q of segment s is word q * 32 + s of the row, so 32 lanes scanning
// their segments in step read 256 contiguous bytes.
struct SelfPivotedPieces {
  const uint64_t* row;
  int32_t segment_pieces;

  __device__ __forceinline__ SelfPivotedPieces(const uint8_t* data, const int64_t* starts, int64_t r)
      : row(reinterpret_cast<const uint64_t*>(data + starts[r])),
        segment_pieces(static_cast<int32_t>((starts[r + 1] - starts[r]) / PIVOT_ROW_BYTES)) {}

  // Bytes per segment.
  __device__ __forceinline__ int32_t segment_bytes() const { return segment_pieces * PIECE_BYTES; }

  __device__ __forceinline__ uint64_t piece_of_segment(int32_t s, int32_t q) const {
    return __ldg(reinterpret_cast<const unsigned long long*>(row + static_cast<int64_t>(q) * 32 + s));
  }

  // Piece k of the string (a division: for random access; scans step a SegmentCursor instead).
  __device__ __forceinline__ uint64_t piece(int32_t k) const {
    const int32_t s = k / segment_pieces;
    return piece_of_segment(s, k - s * segment_pieces);
  }
};

// Sequential pieces of a SELF_PIVOTED row from any starting piece: the (segment, piece) pair steps without dividing.
struct SegmentCursor {
  int32_t segment;
  int32_t q;

  __device__ __forceinline__ SegmentCursor(const SelfPivotedPieces& row, int32_t k) {
    segment = k / row.segment_pieces;
    q = k - segment * row.segment_pieces;
  }

  __device__ __forceinline__ uint64_t read(const SelfPivotedPieces& row) const {
    return row.piece_of_segment(segment, q);
  }

  __device__ __forceinline__ void advance(const SelfPivotedPieces& row) {
    if (++q == row.segment_pieces) {
      q = 0;
      segment++;
    }
  }
};

}  // namespace sparkwarp
