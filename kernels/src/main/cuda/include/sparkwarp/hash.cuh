// Hashes of join keys: a 64-bit finaliser for integers, a word-at-a-time hash for byte strings, and the combiner
// of several key columns. Bit-exact twin: io.sparkwarp.kernels.join.KeyHash (the host reference and the tests
// rely on both sides putting every key in the same bucket).
#pragma once
#include <cstdint>

namespace sparkwarp {

constexpr uint64_t HASH_MULTIPLIER = 0x9E3779B97F4A7C15ull;
// The column hash of a null key under null-safe equality (<=>), where null matches null.
constexpr uint64_t NULL_KEY_HASH = 0x5BD1E9955BD1E995ull;

// MurmurHash3's fmix64: every input bit affects every output bit, so low bits make good bucket indices.
__device__ __forceinline__ uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  k ^= k >> 33;
  return k;
}

// int32 keys are sign-extended first, so an int32 and an int64 of the same value hash alike.
__device__ __forceinline__ uint64_t hash_int64(int64_t v) { return fmix64(static_cast<uint64_t>(v)); }

// Little-endian 8-byte words (the last one zero-padded), each mixed in, seeded with the length so that trailing
// zero bytes change the hash.
__device__ __forceinline__ uint64_t hash_bytes(const uint8_t* p, int32_t length) {
  uint64_t h = fmix64(static_cast<uint64_t>(length) ^ HASH_MULTIPLIER);
  for (int32_t i = 0; i < length; i += 8) {
    const int32_t n = length - i < 8 ? length - i : 8;
    uint64_t w = 0;
    for (int32_t k = 0; k < n; k++) w |= static_cast<uint64_t>(p[i + k]) << (8 * k);
    h = (h ^ fmix64(w)) * HASH_MULTIPLIER;
  }
  return fmix64(h);
}

// The running hash of key columns 0..c-1 combined with column c's hash (start from 0).
__device__ __forceinline__ uint64_t hash_combine(uint64_t h, uint64_t column_hash) {
  return fmix64(h * HASH_MULTIPLIER + column_hash);
}

}  // namespace sparkwarp
