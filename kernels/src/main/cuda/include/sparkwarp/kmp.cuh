// Literal segments found with KMP (Sitaridi ch. 5): the device form of a SegmentMatcher, its anchor checks, the
// KMP_hybrid step over one 8-byte piece, and the lane-per-row matcher that strings them together. Semantics:
// io.sparkwarp.kernels.strings.SegmentMatcher#matches.
#pragma once
#include <cstdint>

#include "sparkwarp/string_pieces.cuh"

namespace sparkwarp {

// Header words of a segment program, laid out by io.sparkwarp.kernels.cuda.MatcherProgram (keep both in step):
// lengths and counts, then the byte offsets of the sections, each 8-byte aligned.
namespace segment_abi {
constexpr int PREFIX_LENGTH = 0;
constexpr int SUFFIX_LENGTH = 1;
constexpr int SEGMENT_COUNT = 2;
constexpr int EXACT = 3;
constexpr int MIN_LENGTH = 4;
constexpr int SEGMENT_BASE = 5;    // int32[K]: where segment i starts in the pattern bytes and the failure table
constexpr int SEGMENT_LENGTH = 6;  // int32[K]
constexpr int REST = 7;            // int32[K + 1]: bytes of segments i..K-1
constexpr int FAILURE = 8;         // int32[pattern bytes]: failure[base_i + j] = KMP failure f_i[j], j < length_i
constexpr int PREFIX = 9;          // prefix bytes, zero to the next whole word
constexpr int SUFFIX = 10;         // 8 zero bytes, the suffix, zero to the next whole word and 8 more
constexpr int PATTERN = 11;        // the segments' bytes, concatenated
constexpr int HEADER_WORDS = 12;
}  // namespace segment_abi

// A segment program in (shared) memory.
struct SegmentProgram {
  int32_t prefix_length;
  int32_t suffix_length;
  int32_t segment_count;
  int32_t min_length;
  bool exact;
  const int32_t* segment_base;
  const int32_t* segment_length;
  const int32_t* rest;
  const int32_t* failure;
  const uint64_t* prefix;
  const uint64_t* suffix;
  const uint8_t* pattern;

  __device__ __forceinline__ explicit SegmentProgram(const uint8_t* program) {
    using namespace segment_abi;
    const int32_t* h = reinterpret_cast<const int32_t*>(program);
    prefix_length = h[PREFIX_LENGTH];
    suffix_length = h[SUFFIX_LENGTH];
    segment_count = h[SEGMENT_COUNT];
    min_length = h[MIN_LENGTH];
    exact = h[EXACT] != 0;
    segment_base = reinterpret_cast<const int32_t*>(program + h[SEGMENT_BASE]);
    segment_length = reinterpret_cast<const int32_t*>(program + h[SEGMENT_LENGTH]);
    rest = reinterpret_cast<const int32_t*>(program + h[REST]);
    failure = reinterpret_cast<const int32_t*>(program + h[FAILURE]);
    prefix = reinterpret_cast<const uint64_t*>(program + h[PREFIX]);
    suffix = reinterpret_cast<const uint64_t*>(program + h[SUFFIX]);
    pattern = program + h[PATTERN];
  }

  // Whether a string of n bytes is long enough (exactly long enough for equality) to match.
  __device__ __forceinline__ bool length_allows(int32_t n) const {
    return exact ? n == prefix_length : n >= min_length;
  }

  // Whether bytes [lo, hi) of piece k equal the prefix bytes at the same positions (all inside the prefix).
  __device__ __forceinline__ bool prefix_matches(uint64_t piece, int32_t k, int lo, int hi) const {
    return ((piece ^ prefix[k]) & piece_byte_mask(lo, hi)) == 0;
  }

  // Whether bytes [lo, hi) of piece k of a string of n bytes equal the suffix bytes they line up with (all inside
  // the suffix). String byte 8k lines up with byte 8 + 8k - (n - S) of the suffix section, which is at least 1: the
  // first piece holding suffix bytes starts at most 7 bytes before the suffix. The section's zero words on both
  // sides keep the two words read inside it.
  __device__ __forceinline__ bool suffix_matches(uint64_t piece, int32_t k, int lo, int hi, int32_t n) const {
    const int32_t at = 8 + 8 * k - (n - suffix_length);
    const int shift = (at & 7) * 8;
    const uint64_t low = suffix[at >> 3];
    const uint64_t expected = shift == 0 ? low : (low >> shift) | (suffix[(at >> 3) + 1] << (64 - shift));
    return ((piece ^ expected) & piece_byte_mask(lo, hi)) == 0;
  }

  // KMP over bytes [lo, hi) of a piece (lo < hi), for the segment at `base` of length m with j of its bytes matched
  // so far (updated). Sitaridi's KMP_hybrid inner loop: the byte advances on a match or at j = 0, otherwise j falls
  // back along the failure table, so lanes diverge only within a piece and meet again at piece boundaries. Returns
  // the index in the piece just past the first full occurrence, or -1 when the bytes run out first.
  __device__ __forceinline__ int scan_piece(int32_t base, int32_t m, uint64_t piece, int lo, int hi,
                                            int32_t& j) const {
    uint64_t t = piece >> (8 * lo);
    int k = lo;
    while (k < hi) {
      const bool hit = pattern[base + j] == static_cast<uint8_t>(t);
      if (hit || j == 0) {
        t >>= 8;
        k++;
      } else {
        j = failure[base + j];
      }
      j += hit;
      if (j == m) return k;
    }
    return -1;
  }
};

// A SegmentMatcher run by one lane over one string, one piece per call. The anchors go first, the prefix and then
// the suffix, because they reject with a piece or two (LIKE 'abc%' reads one piece of a long string); then the
// segments in order, leftmost first, each searched from just past the previous one with a (segment, j) KMP state
// (Sitaridi: "each time a substring is found the array index is incremented"). The middle rejects as soon as the
// bytes left cannot hold what is still to be found.
struct SegmentLane {
  enum Phase : int32_t { PREFIX, SUFFIX, MIDDLE };

  int32_t n;      // the string's length
  int32_t pos;    // the next byte to examine
  int32_t stop;   // the end of the current phase's bytes
  int32_t phase;
  int32_t seg;    // the segment searched for
  int32_t base;   // its start in the pattern bytes
  int32_t m;      // its length
  int32_t j;      // its bytes matched so far
  bool accepted;  // the answer, once decided

  // Starts on a string of `length` bytes. False when that decides it.
  __device__ __forceinline__ bool open(const SegmentProgram& p, int32_t length) {
    n = length;
    accepted = false;
    if (!p.length_allows(n)) return false;
    phase = PREFIX;
    pos = 0;
    stop = p.prefix_length;
    return p.prefix_length > 0 || next_phase(p);
  }

  __device__ __forceinline__ int32_t next_piece() const { return pos >> 3; }

  // Examines the bytes of piece next_piece() that belong to the current phase. True when the string is decided.
  __device__ __forceinline__ bool consume(const SegmentProgram& p, uint64_t piece) {
    const int32_t k = pos >> 3;
    const int lo = pos & 7;
    const int hi = stop - 8 * k < 8 ? stop - 8 * k : 8;
    if (phase == PREFIX || phase == SUFFIX) {
      const bool ok = phase == PREFIX ? p.prefix_matches(piece, k, lo, hi) : p.suffix_matches(piece, k, lo, hi, n);
      if (!ok) return true;
      pos = 8 * k + hi;
      return pos == stop && !next_phase(p);
    }
    if (stop - pos < p.rest[seg] - j) return true;  // too few bytes left for the rest
    int at = lo;
    while (at < hi && (at = p.scan_piece(base, m, piece, at, hi, j)) >= 0) {
      if (++seg == p.segment_count) {
        accepted = true;
        return true;
      }
      enter_segment(p);
    }
    pos = 8 * k + hi;
    return pos == stop;
  }

  __device__ __forceinline__ bool matched() const { return accepted; }

 private:
  __device__ __forceinline__ void enter_segment(const SegmentProgram& p) {
    base = p.segment_base[seg];
    m = p.segment_length[seg];
    j = 0;
  }

  // Moves to the next phase that has bytes to examine; false when none is left, which decides the string. The
  // length check in open() guarantees each phase's bytes exist and do not overlap.
  __device__ __forceinline__ bool next_phase(const SegmentProgram& p) {
    if (phase == PREFIX) {
      phase = SUFFIX;
      if (p.suffix_length > 0) {
        pos = n - p.suffix_length;
        stop = n;
        return true;
      }
    }
    phase = MIDDLE;
    if (p.segment_count == 0) {
      accepted = true;
      return false;
    }
    pos = p.prefix_length;
    stop = n - p.suffix_length;
    seg = 0;
    enter_segment(p);
    return true;
  }
};

}  // namespace sparkwarp
