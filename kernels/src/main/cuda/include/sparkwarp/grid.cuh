// Grid-level iteration helpers shared by every kernel: 64-bit indices, grid-stride loops.
#pragma once
#include <cstdint>

namespace sparkwarp {

// Global thread index as 64 bits, so batches past 2^31 elements index correctly.
__device__ __forceinline__ int64_t global_thread_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// Total threads in the grid: the stride of a grid-stride loop.
__device__ __forceinline__ int64_t grid_stride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// Calls f(i) for every i in [0, n), spread over the grid so any launch size covers any n.
template <typename F>
__device__ __forceinline__ void for_each_index(int64_t n, F f) {
  for (int64_t i = global_thread_index(); i < n; i += grid_stride()) f(i);
}

// Calls f(t) for every t in [0, n) with all threads of a block on the same t: a grid-stride loop over block-sized
// tiles, uniform within each block so the body may use __syncthreads.
template <typename F>
__device__ __forceinline__ void for_each_block_tile(int64_t n, F f) {
  for (int64_t t = blockIdx.x; t < n; t += gridDim.x) f(t);
}

}  // namespace sparkwarp
