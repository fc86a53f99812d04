// Arrow validity and boolean bitmaps: bit i of the map is bit (i % 8) of byte (i / 8), least significant first.
// On a little-endian GPU that is bit (i % 32) of 32-bit word (i / 32), so bitmaps are processed a word at a time.
// Device buffers are padded to 8 bytes (DeviceMemory), so the word holding a bitmap's last bit is always readable.
#pragma once
#include <cstdint>

namespace sparkwarp {

// Mask of the bits [lo, hi) of one 32-bit word, 0 <= lo <= hi <= 32.
__device__ __forceinline__ uint32_t bit_range_mask(int lo, int hi) {
  uint32_t upto_hi = hi >= 32 ? 0xffffffffu : ((1u << hi) - 1u);
  uint32_t below_lo = lo >= 32 ? 0xffffffffu : ((1u << lo) - 1u);
  return upto_hi & ~below_lo;
}

// The 32 bits of a bitmap starting at bit `pos` (which may be negative: bits before 0 read as 0), reading no word
// at or past `word_count`.
__device__ __forceinline__ uint32_t load_bits32(const uint32_t* words, int64_t pos, int64_t word_count) {
  if (pos < 0) {
    // only the first destination word of a copy can start before the source: at most 31 bits early
    return load_bits32(words, 0, word_count) << static_cast<int>(-pos);
  }
  int64_t w = pos >> 5;
  int shift = static_cast<int>(pos & 31);
  uint32_t lo = w < word_count ? words[w] : 0u;
  uint32_t hi = (shift != 0 && w + 1 < word_count) ? words[w + 1] : 0u;
  return __funnelshift_r(lo, hi, shift);
}

}  // namespace sparkwarp
