// Kernels for Arrow-layout device batches: bitmap copies at any bit offset (slicing and concatenating validity
// and boolean columns), string offset rebasing, and decimal width changes between Arrow (128-bit) and device
// (64-bit) layouts. Host twins: io.sparkwarp.kernels.host.HostBatchPrimitives.
#include "sparkwarp/bits.cuh"
#include "sparkwarp/grid.cuh"

using namespace sparkwarp;

// dst bits [dst_bit, dst_bit + nbits) = src bits [src_bit, src_bit + nbits); other bits of dst keep their value.
// One thread per destination word, so the partial words at either end are read-modify-written without races.
extern "C" __global__ void sw_copy_bits(const uint32_t* src, int64_t src_bit, uint32_t* dst, int64_t dst_bit,
                                        int64_t nbits) {
  if (nbits <= 0) return;
  const int64_t first_word = dst_bit >> 5;
  const int64_t last_word = (dst_bit + nbits - 1) >> 5;
  const int64_t src_words = (src_bit + nbits + 31) >> 5;
  for_each_index(last_word - first_word + 1, [&](int64_t i) {
    const int64_t w = first_word + i;
    const int64_t word_start = w << 5;
    const int lo = word_start < dst_bit ? static_cast<int>(dst_bit - word_start) : 0;
    const int64_t end = dst_bit + nbits - word_start;
    const int hi = end < 32 ? static_cast<int>(end) : 32;
    const uint32_t mask = bit_range_mask(lo, hi);
    const uint32_t bits = load_bits32(src, src_bit + (word_start - dst_bit), src_words);
    dst[w] = mask == 0xffffffffu ? bits : ((dst[w] & ~mask) | (bits & mask));
  });
}

// dst bits [dst_bit, dst_bit + nbits) = value; other bits keep theirs.
extern "C" __global__ void sw_fill_bits(uint32_t* dst, int64_t dst_bit, int64_t nbits, int value) {
  if (nbits <= 0) return;
  const int64_t first_word = dst_bit >> 5;
  const int64_t last_word = (dst_bit + nbits - 1) >> 5;
  for_each_index(last_word - first_word + 1, [&](int64_t i) {
    const int64_t w = first_word + i;
    const int64_t word_start = w << 5;
    const int lo = word_start < dst_bit ? static_cast<int>(dst_bit - word_start) : 0;
    const int64_t end = dst_bit + nbits - word_start;
    const uint32_t mask = bit_range_mask(lo, end < 32 ? static_cast<int>(end) : 32);
    dst[w] = value ? (dst[w] | mask) : (dst[w] & ~mask);
  });
}

// dst[i] = src[i] - src[0] + add for i in [0, count): moves a run of string offsets to start at `add`.
// src[0] is read by every thread before any write, and src and dst never alias (separate buffers).
extern "C" __global__ void sw_rebase_offsets(const int32_t* src, int64_t count, int32_t* dst, int32_t add) {
  const int32_t base = src[0];
  for_each_index(count, [&](int64_t i) { dst[i] = src[i] - base + add; });
}

// Arrow decimal (16 bytes, little-endian two's complement) to the device's 64-bit unscaled value. Precision <= 18
// guarantees the high word is the sign extension of the low word.
extern "C" __global__ void sw_decimal128_to_64(const int64_t* src, int64_t* dst, int64_t n) {
  for_each_index(n, [&](int64_t i) { dst[i] = src[2 * i]; });
}

// The device's 64-bit unscaled decimal to Arrow's 16-byte layout, sign-extending the high word.
extern "C" __global__ void sw_decimal64_to_128(const int64_t* src, int64_t* dst, int64_t n) {
  for_each_index(n, [&](int64_t i) {
    const int64_t v = src[i];
    dst[2 * i] = v;
    dst[2 * i + 1] = v >> 63;
  });
}
