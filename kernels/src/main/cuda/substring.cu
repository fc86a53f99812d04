// Spark's substring(str, pos, len) of a string column, pos and len constants (utf8.cuh): a substring is a run of its
// string's bytes, so a lane per row finds that run, or a warp where the row is long (ranges), the host scans the
// lengths into the new offsets (scan.cu) and reads back the total, and a warp per row copies the bytes (copy).
// Validity is the input's, copied by the host. Host twin: io.sparkwarp.kernels.host.HostStringPrimitives.substring;
// orchestration: io.sparkwarp.kernels.cuda.CudaSubstring.
#include "sparkwarp/grid.cuh"
#include "sparkwarp/utf8.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;

// Rows whose walk could pass this many bytes are walked by their whole warp instead of their lane.
constexpr int64_t SUBSTRING_LANE_BYTES = 64;

// begins[r] = where row r's substring starts in data, lengths[r] = its bytes (0 for a null row). A warp takes 32
// rows, a lane each; the rows a lane would walk far (utf8_substring_walk) the warp then walks together, one after
// another.
extern "C" __global__ void sw_substring_ranges(const uint32_t* validity, const int32_t* offsets, const uint8_t* data,
                                               int64_t rows, int32_t pos, int32_t len, int32_t* begins,
                                               int32_t* lengths) {
  for_each_warp_tile((rows + 31) >> 5, [&](int64_t tile) {
    const int64_t r = (tile << 5) + lane_id();
    const bool here = r < rows && ((validity[r >> 5] >> (r & 31)) & 1u);
    const int32_t at = r < rows ? offsets[r] : 0;
    const int32_t n = here ? offsets[r + 1] - at : 0;
    const bool long_walk = here && utf8_substring_walk(n, pos, len) > SUBSTRING_LANE_BYTES;
    ByteRange range = here && !long_walk ? utf8_substring(data + at, n, pos, len) : ByteRange{0, 0};
    for (uint32_t todo = __ballot_sync(FULL_WARP, long_walk); todo != 0; todo &= todo - 1) {
      const int lane = __ffs(static_cast<int>(todo)) - 1;
      const ByteRange found = utf8_substring_warp(data + __shfl_sync(FULL_WARP, at, lane),
                                                  __shfl_sync(FULL_WARP, n, lane), pos, len);
      if (lane_id() == lane) range = found;
    }
    if (r < rows) {
      begins[r] = at + range.begin;
      lengths[r] = range.end - range.begin;
    }
  });
}

// Row r's substring, begins[r] in src, to dst at offsets[r]: one warp per row, lanes striding over its bytes.
extern "C" __global__ void sw_substring_copy(const uint8_t* src, const int32_t* begins, const int32_t* offsets,
                                             int64_t rows, uint8_t* dst) {
  for_each_warp_tile(rows, [&](int64_t r) {
    const int32_t begin = begins[r];
    const int32_t length = offsets[r + 1] - offsets[r];
    uint8_t* out = dst + offsets[r];
    for (int32_t k = lane_id(); k < length; k += 32) out[k] = src[begin + k];
  });
}
