// Parquet's RLE / bit-packed hybrid (definition levels, dictionary indices, RLE booleans), decoded by a whole warp:
// every lane parses the same run headers (broadcast reads, no divergence) and the lanes expand each run's values in
// parallel, lane i taking values i, i + 32, ... of the run. Reads never leave [src, src + len).
#pragma once
#include <cstdint>
#include "parquet_status.cuh"
#include "varint.cuh"
#include "warp.cuh"

namespace sparkwarp {

// Decodes the first `count` values of `bit_width` (0..32) bits, calling emit(i, value) once per value i in
// [0, count) on some lane. Returns a status, the same on every lane.
template <typename Emit>
__device__ int32_t rle_hybrid_decode_warp(const uint8_t* src, int64_t len, int bit_width, int64_t count, Emit emit) {
  if (bit_width > 32) return PQ_BAD_BIT_WIDTH;
  const int lane = lane_id();
  int64_t pos = 0;
  int64_t done = 0;
  while (done < count) {
    uint64_t header;
    const int32_t err = read_varint(src, len, &pos, &header);
    if (err != PQ_OK) return err;
    if (header & 1) {
      // bit-packed: (header >> 1) groups of 8 values, bit_width bytes per group, least significant bit first
      const int64_t values = static_cast<int64_t>(header >> 1) * 8;
      const int64_t n = values < count - done ? values : count - done;
      if (pos + (n * bit_width + 7) / 8 > len) return PQ_TRUNCATED;
      for (int64_t i = lane; i < n; i += 32) {
        emit(done + i, static_cast<uint32_t>(unpack_bits(src + pos, i * bit_width, bit_width)));
      }
      pos += static_cast<int64_t>(header >> 1) * bit_width;
      done += n;
    } else {
      // run: (header >> 1) copies of one value stored in ceil(bit_width / 8) bytes
      const int bytes = (bit_width + 7) >> 3;
      if (pos + bytes > len) return PQ_TRUNCATED;
      const uint32_t value = static_cast<uint32_t>(load_le(src + pos, bytes));
      pos += bytes;
      const int64_t run = static_cast<int64_t>(header >> 1);
      const int64_t n = run < count - done ? run : count - done;
      for (int64_t i = lane; i < n; i += 32) emit(done + i, value);
      done += n;
    }
  }
  return PQ_OK;
}

}  // namespace sparkwarp
