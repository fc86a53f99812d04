// What the benchmark harnesses share: a CUDA error check that aborts with the failing call (they have no error
// path), the median time of a launch, and a hash that makes generated values depend on the row alone.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cudaError_t e = (call);                                                                           \
    if (e != cudaSuccess) {                                                                           \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e));           \
      exit(1);                                                                                        \
    }                                                                                                 \
  } while (0)

// The median of 5 timed runs of launch() after one warm-up, in milliseconds, by CUDA events.
template <typename Launch>
float median_ms(Launch launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int run = 0; run < 6; run++) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (run > 0) ms.push_back(t);  // the first is the warm-up
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// SplitMix64: the generated values depend on the row alone.
__host__ __device__ inline uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
