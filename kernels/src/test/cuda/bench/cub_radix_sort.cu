// The reference for the device sort's speed (issue 14): CUB's DeviceRadixSort::SortPairs over N random 64-bit keys
// with 32-bit row ids as values, the same shape as sparkwarp's sort order (a permutation of row ids by key). CUDA
// events around each sort, one warm-up, the median of 5; prints M keys/s and GB/s of keys and values moved.
// Build with this machine's nvcc, cudart linked statically so the GPU machine needs no toolkit:
//   nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -o cub_radix_sort kernels/src/test/cuda/bench/cub_radix_sort.cu
// Run there: ./cub_radix_sort [N] (default 100000000).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "harness.h"

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? strtoull(argv[1], nullptr, 10) : 100000000ull;
  std::vector<unsigned long long> keys(n);
  std::vector<int> values(n);
  std::mt19937_64 rnd(2026);
  for (size_t i = 0; i < n; i++) {
    keys[i] = rnd();
    values[i] = static_cast<int>(i);
  }
  unsigned long long *d_keys_in, *d_keys_out;
  int *d_values_in, *d_values_out;
  CHECK(cudaMalloc(&d_keys_in, n * 8));
  CHECK(cudaMalloc(&d_keys_out, n * 8));
  CHECK(cudaMalloc(&d_values_in, n * 4));
  CHECK(cudaMalloc(&d_values_out, n * 4));
  CHECK(cudaMemcpy(d_keys_in, keys.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_values_in, values.data(), n * 4, cudaMemcpyHostToDevice));
  size_t temp_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out,
                                        static_cast<int>(n)));
  void* d_temp;
  CHECK(cudaMalloc(&d_temp, temp_bytes));
  const double median = median_ms([&] {
    CHECK(cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out,
                                          static_cast<int>(n)));
  });
  // check the order once
  std::vector<unsigned long long> sorted(n);
  CHECK(cudaMemcpy(sorted.data(), d_keys_out, n * 8, cudaMemcpyDeviceToHost));
  const bool ok = std::is_sorted(sorted.begin(), sorted.end());
  printf("cub DeviceRadixSort::SortPairs, %zu uint64 keys + int32 values: %.2f ms, %.0f M keys/s, sorted=%s\n", n,
         median, n / median / 1e3, ok ? "yes" : "NO");
  return ok ? 0 : 1;
}
