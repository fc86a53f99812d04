// UTF-8 as Spark's UTF8String reads it: a character's length from its first byte alone, and substring(str, pos, len)
// as a byte range of its string, walked by one thread or by a whole warp. Java twin (the definition, with Spark's
// rules spelled out): io.sparkwarp.kernels.strings.Utf8Substring.
#pragma once
#include <cstdint>

#include "sparkwarp/warp.cuh"

namespace sparkwarp {

// Bytes of the character starting with byte b, as Spark's numBytesForFirstByte: 2 for C2..DF, 3 for E0..EF, 4 for
// F0..F4, 1 for every other byte (ASCII, and bytes that start no UTF-8 character).
__device__ __forceinline__ int32_t utf8_char_bytes(uint8_t b) {
  return b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 1;
}

// [begin, end) of a string's bytes.
struct ByteRange {
  int32_t begin;
  int32_t end;
};

// Spark's character range of substring(s, pos, len) over a string of `chars` characters (needed only for a
// negative pos): [first, until), empty when until <= first. pos is 1-based, 0 acts as 1, a negative pos counts from
// the end; pos + len saturates to the int range; characters before the string's start are not there.
struct CharRange {
  int64_t first;
  int64_t until;

  __device__ __forceinline__ CharRange(int64_t chars, int32_t pos, int32_t len) {
    const int64_t start = pos > 0 ? pos - int64_t{1} : pos < 0 ? chars + pos : 0;
    const int64_t end = start + len;
    until = end > INT32_MAX ? INT32_MAX : end < INT32_MIN ? INT32_MIN : end;
    first = start > 0 ? start : 0;
  }
};

// The most bytes a thread walks for substring(pos, len) of n bytes: all of them to count the characters for a
// negative pos, otherwise up to its end character, at most 4 bytes each.
__device__ __forceinline__ int64_t utf8_substring_walk(int32_t n, int32_t pos, int32_t len) {
  if (pos < 0) return n;
  const int64_t until = CharRange(0, pos, len).until;
  return until <= 0 ? 0 : until * 4 < n ? until * 4 : n;
}

// substring(pos, len) of the n bytes at s, walked by one thread; a character that claims more bytes than are left
// ends at the string's end.
__device__ __forceinline__ ByteRange utf8_substring(const uint8_t* s, int32_t n, int32_t pos, int32_t len) {
  int64_t chars = 0;
  if (pos < 0) {
    for (int32_t i = 0; i < n; i += utf8_char_bytes(s[i])) chars++;
  }
  const CharRange range(chars, pos, len);
  if (range.until <= range.first) return {0, 0};
  int32_t i = 0;
  int64_t c = 0;
  for (; i < n && c < range.first; c++) i += utf8_char_bytes(s[i]);
  const int32_t begin = i < n ? i : n;
  for (; i < n && c < range.until; c++) i += utf8_char_bytes(s[i]);
  return {begin, i < n ? i : n};
}

// The bytes of a character still to come at a byte, given those still to come before it: a map of the 4 values
// 0..3, 2 bits each. Inside a character, one fewer; at a character's first byte (none to come), the rest of it.
__device__ __forceinline__ uint32_t utf8_carry_map(uint8_t b) {
  return static_cast<uint32_t>(utf8_char_bytes(b) - 1) | 0u << 2 | 1u << 4 | 2u << 6;
}

__device__ __forceinline__ uint32_t utf8_carry_apply(uint32_t map, uint32_t carry) { return (map >> (2 * carry)) & 3u; }

// The map of `earlier` followed by `later`.
__device__ __forceinline__ uint32_t utf8_carry_compose(uint32_t later, uint32_t earlier) {
  uint32_t out = 0;
  for (uint32_t c = 0; c < 4; c++) out |= utf8_carry_apply(later, utf8_carry_apply(earlier, c)) << (2 * c);
  return out;
}

// The lanes whose byte of the 32-byte window at `at` starts a character, when `carry` bytes of a character begun
// before the window come first; `carry` becomes the window's carry-out. Lane l reads byte at + l, composes the maps
// of the bytes before it (a warp scan) and applies them to the carry: exactly the bytes Spark's sequential walk
// lands on, also where bytes are not UTF-8. Every lane calls it with the same arguments.
__device__ __forceinline__ uint32_t utf8_window_starts(const uint8_t* s, int32_t n, int32_t at, uint32_t& carry) {
  constexpr uint32_t IDENTITY = 0u | 1u << 2 | 2u << 4 | 3u << 6;
  const int32_t i = at + lane_id();
  uint32_t inclusive = i < n ? utf8_carry_map(s[i]) : IDENTITY;
  for (int d = 1; d < 32; d <<= 1) {
    const uint32_t earlier = __shfl_up_sync(FULL_WARP, inclusive, d);
    if (lane_id() >= d) inclusive = utf8_carry_compose(inclusive, earlier);
  }
  uint32_t before = __shfl_up_sync(FULL_WARP, inclusive, 1);
  if (lane_id() == 0) before = IDENTITY;
  const uint32_t starts = __ballot_sync(FULL_WARP, i < n && utf8_carry_apply(before, carry) == 0);
  carry = utf8_carry_apply(__shfl_sync(FULL_WARP, inclusive, 31), carry);
  return starts;
}

// The lane of the k-th (from 0) set bit of `bits`, which every lane holds.
__device__ __forceinline__ int32_t warp_nth_set_bit(uint32_t bits, int64_t k) {
  const bool here = ((bits >> lane_id()) & 1u) != 0 && __popc(bits & lanemask_lt()) == k;
  return __ffs(__ballot_sync(FULL_WARP, here)) - 1;
}

// utf8_substring walked by the whole warp, 32 bytes a step (utf8_window_starts): for long strings. Every lane calls
// it with the same arguments and gets the range.
__device__ __forceinline__ ByteRange utf8_substring_warp(const uint8_t* s, int32_t n, int32_t pos, int32_t len) {
  int64_t chars = 0;
  uint32_t carry = 0;
  if (pos < 0) {
    for (int32_t at = 0; at < n; at += 32) chars += __popc(utf8_window_starts(s, n, at, carry));
  }
  const CharRange range(chars, pos, len);
  if (range.until <= range.first) return {0, 0};
  ByteRange out{n, n};  // a character index the string does not reach lies at its end
  bool begun = false;
  int64_t seen = 0;  // characters starting before the window
  carry = 0;
  for (int32_t at = 0; at < n; at += 32) {
    const uint32_t starts = utf8_window_starts(s, n, at, carry);
    const int count = __popc(starts);
    if (!begun && range.first < seen + count) {
      out.begin = at + warp_nth_set_bit(starts, range.first - seen);
      begun = true;
    }
    if (range.until < seen + count) {
      out.end = at + warp_nth_set_bit(starts, range.until - seen);
      break;
    }
    seen += count;
  }
  return out;
}

}  // namespace sparkwarp
