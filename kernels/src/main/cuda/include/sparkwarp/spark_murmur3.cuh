// Spark's Murmur3_x86_32 (org.apache.spark.unsafe.hash), the hash of HashPartitioning's partition ids: rows the GPU
// shuffle places must land where Spark's CPU shuffle and bucketed writes put equal keys, so this is Spark's variant
// bit for bit, including its non-standard tail (each trailing byte mixed in on its own, sign-extended).
// Host twin: io.sparkwarp.kernels.partition.SparkMurmur3.
#pragma once
#include <cstdint>

namespace sparkwarp {
namespace spark_murmur3 {

constexpr uint32_t SEED = 42;  // HashPartitioning.partitionIdExpression's Murmur3Hash seed

__device__ __forceinline__ uint32_t mix_k1(uint32_t k1) {
  k1 *= 0xcc9e2d51u;
  k1 = __funnelshift_l(k1, k1, 15);
  return k1 * 0x1b873593u;
}

__device__ __forceinline__ uint32_t mix_h1(uint32_t h1, uint32_t k1) {
  h1 ^= k1;
  h1 = __funnelshift_l(h1, h1, 13);
  return h1 * 5u + 0xe6546b64u;
}

__device__ __forceinline__ uint32_t fmix(uint32_t h1, uint32_t length) {
  h1 ^= length;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bu;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35u;
  h1 ^= h1 >> 16;
  return h1;
}

__device__ __forceinline__ uint32_t hash_int(uint32_t v, uint32_t seed) { return fmix(mix_h1(seed, mix_k1(v)), 4); }

// The low word, then the high word.
__device__ __forceinline__ uint32_t hash_long(uint64_t v, uint32_t seed) {
  const uint32_t h = mix_h1(seed, mix_k1(static_cast<uint32_t>(v)));
  return fmix(mix_h1(h, mix_k1(static_cast<uint32_t>(v >> 32))), 8);
}

// hashUnsafeBytes: little-endian 4-byte words, then every trailing byte as a sign-extended int.
__device__ __forceinline__ uint32_t hash_bytes(const uint8_t* p, int32_t length, uint32_t seed) {
  const int32_t aligned = length - length % 4;
  uint32_t h = seed;
  for (int32_t i = 0; i < aligned; i += 4) {
    const uint32_t word = static_cast<uint32_t>(p[i]) | (static_cast<uint32_t>(p[i + 1]) << 8)
        | (static_cast<uint32_t>(p[i + 2]) << 16) | (static_cast<uint32_t>(p[i + 3]) << 24);
    h = mix_h1(h, mix_k1(word));
  }
  for (int32_t i = aligned; i < length; i++) {
    h = mix_h1(h, mix_k1(static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(p[i])))));
  }
  return fmix(h, static_cast<uint32_t>(length));
}

// A decimal wider than a long hashes as BigInteger.toByteArray() of its unscaled value: big-endian two's complement
// in the fewest bytes that keep the sign. lo/hi: the little-endian 128-bit value's words.
__device__ __forceinline__ uint32_t hash_wide_decimal(uint64_t lo, uint64_t hi, uint32_t seed) {
  uint8_t bytes[16];
  for (int k = 0; k < 8; k++) {
    bytes[k] = static_cast<uint8_t>(hi >> (56 - 8 * k));
    bytes[8 + k] = static_cast<uint8_t>(lo >> (56 - 8 * k));
  }
  // a leading byte is redundant when it only repeats the sign bit of the byte after it
  int start = 0;
  while (start < 15 && bytes[start] == static_cast<uint8_t>(static_cast<int8_t>(bytes[start + 1]) >> 7)) start++;
  return hash_bytes(bytes + start, 16 - start, seed);
}

}  // namespace spark_murmur3
}  // namespace sparkwarp
