// The bit readers of Zstandard (RFC 8878, doc/zstd_compression_format.md): the backward bitstreams of Huffman
// literals, FSE-compressed Huffman weights and sequences (read from the last byte down, the highest set bit of the
// last byte a marker that starts them), and the forward little-endian bits of FSE table descriptions. Every byte
// read lies inside the stream given; bits past its end read as 0 and are counted, so the caller can tell a stream
// read exactly (what the format requires) from one read too far.
#pragma once
#include <cstdint>
#include "warp.cuh"

namespace sparkwarp {

// Index of the highest set bit of v (> 0).
__device__ __forceinline__ int zstd_highbit(uint32_t v) { return 31 - __clz(static_cast<int>(v)); }

// A backward bitstream, read by one lane: each read takes the stream's highest unread bits.
struct ZstdBackwardBits {
  const uint8_t* src;
  int64_t next;     // the next byte to load, going down; below 0 when all are loaded
  uint64_t bits;    // loaded bits; the next one to read is bit `avail - 1`
  int32_t avail;    // loaded bits not read yet
  int64_t padding;  // zero bits loaded from below the stream's start

  // False when the stream is empty or its last byte, which holds the marker, is 0 (both corrupt).
  __device__ bool init(const uint8_t* s, int64_t len) {
    src = s;
    padding = 0;
    bits = 0;
    avail = 0;
    next = -1;
    if (len <= 0 || s[len - 1] == 0) return false;
    bits = s[len - 1];
    avail = zstd_highbit(s[len - 1]);  // the bits below the marker
    next = len - 2;
    return true;
  }

  __device__ __forceinline__ void refill() {
    while (avail <= 56) {
      const bool inside = next >= 0;
      bits = (bits << 8) | (inside ? src[next] : 0u);
      if (inside) next--;
      else padding += 8;
      avail += 8;
    }
  }

  // The next n (<= 32) bits, highest first, without consuming them.
  __device__ __forceinline__ uint32_t peek(int n) {
    if (avail < n) refill();
    return static_cast<uint32_t>((bits >> (avail - n)) & ((1ull << n) - 1));
  }

  __device__ __forceinline__ void skip(int n) { avail -= n; }

  __device__ __forceinline__ uint32_t read(int n) {
    const uint32_t v = peek(n);
    skip(n);
    return v;
  }

  // Bits of the stream not read yet: 0 once it was read exactly, negative once read past its start.
  __device__ __forceinline__ int64_t unread() const { return (next + 1) * 8 + avail - padding; }
};

// Forward little-endian bits of [src, src + len), read by one lane; `pos` is the next bit.
struct ZstdForwardBits {
  const uint8_t* src;
  int64_t len;
  int64_t pos;

  // The next n (<= 24) bits, the first one lowest.
  __device__ __forceinline__ uint32_t peek(int n) const {
    const int64_t at = pos >> 3;
    uint32_t v = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) v |= (at + k < len ? static_cast<uint32_t>(src[at + k]) : 0u) << (8 * k);
    return (v >> (pos & 7)) & ((1u << n) - 1);
  }

  __device__ __forceinline__ uint32_t read(int n) {
    const uint32_t v = peek(n);
    pos += n;
    return v;
  }

  // Bytes the bits read so far take (a partial byte counts whole).
  __device__ __forceinline__ int64_t bytes() const { return (pos + 7) >> 3; }
};

}  // namespace sparkwarp
