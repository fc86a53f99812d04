// UTF-8 as Spark's UTF8String reads it: a character's length from its first byte alone, and substring(str, pos, len)
// as a byte range of its string. Java twin (the definition, with Spark's rules spelled out):
// io.sparkwarp.kernels.strings.Utf8Substring.
#pragma once
#include <cstdint>

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

// Spark's substring(s, pos, len) of the n bytes at s, walked by one thread: characters [start, until) with a
// 1-based pos (0 as 1, negative from the end, which takes a count of all characters first), until saturated to the
// int range, clamped to the string's bytes where its last character claims more than are left.
__device__ __forceinline__ ByteRange utf8_substring(const uint8_t* s, int32_t n, int32_t pos, int32_t len) {
  int64_t chars = 0;
  if (pos < 0) {
    for (int32_t i = 0; i < n; i += utf8_char_bytes(s[i])) chars++;
  }
  const int64_t start = pos > 0 ? pos - int64_t{1} : pos < 0 ? chars + pos : 0;
  int64_t until = start + len;
  until = until > INT32_MAX ? INT32_MAX : until < INT32_MIN ? INT32_MIN : until;
  if (until <= start) return {0, 0};
  int32_t i = 0;
  int64_t c = 0;
  for (; i < n && c < start; c++) i += utf8_char_bytes(s[i]);
  const int32_t begin = i < n ? i : n;
  for (c = start > 0 ? start : 0; i < n && c < until; c++) i += utf8_char_bytes(s[i]);
  return {begin, i < n ? i : n};
}

}  // namespace sparkwarp
