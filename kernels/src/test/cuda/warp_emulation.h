// The CUDA features the kernels use, emulated on the CPU so that CI (which has no GPU) runs the kernels' own
// code: every GPU thread is an OS thread, all blocks of a launch run at once, warp collectives and __syncthreads are
// barriers. A collective must be reached by all 32 lanes with the full mask, as on the GPU; one that a lane skips
// hangs here instead of misbehaving silently (the test's timeout reports it). Used by strings_on_cpu.cpp,
// parquet_on_cpu.cpp, int192_on_cpu.cpp, aggregate_on_cpu.cpp, partition_on_cpu.cpp and sort_on_cpu.cpp (the last two
// through grouping_on_cpu.h), and substring_on_cpu.cpp.
#pragma once
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
#define __grid_constant__

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
struct uint4 {
  unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

// What the lanes of one warp exchange at a collective.
struct EmulatedWarp {
  std::barrier<> arrived{32};
  uint64_t value[32];
};
inline thread_local EmulatedWarp* this_warp;
inline thread_local std::barrier<>* this_block;

inline void require_full_mask(unsigned mask) {
  if (mask != 0xffffffffu) {
    fprintf(stderr, "collective with partial mask %x\n", mask);
    abort();
  }
}

// Every lane's v, after all 32 have given theirs.
inline void exchange(uint64_t v, uint64_t (&all)[32]) {
  this_warp->value[threadIdx.x & 31] = v;
  this_warp->arrived.arrive_and_wait();
  memcpy(all, this_warp->value, sizeof all);
  this_warp->arrived.arrive_and_wait();  // nobody overwrites a value before everyone has read it
}

inline unsigned __ballot_sync(unsigned mask, int p) {
  require_full_mask(mask);
  uint64_t all[32];
  exchange(p != 0, all);
  unsigned bits = 0;
  for (int i = 0; i < 32; i++) bits |= static_cast<unsigned>(all[i] != 0) << i;
  return bits;
}
inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }
inline int __all_sync(unsigned mask, int p) { return __ballot_sync(mask, p) == 0xffffffffu; }

template <typename T>
inline T __shfl_sync(unsigned mask, T v, int source) {
  static_assert(sizeof(T) <= 8);
  require_full_mask(mask);
  uint64_t bits = 0, all[32];
  memcpy(&bits, &v, sizeof(T));
  exchange(bits, all);
  T out;
  memcpy(&out, &all[source & 31], sizeof(T));
  return out;
}

// A lane below `delta` keeps its own value, as on the GPU.
template <typename T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  return __shfl_sync(mask, v, lane >= static_cast<int>(delta) ? lane - static_cast<int>(delta) : lane);
}

template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask) {
  return __shfl_sync(mask, v, static_cast<int>(threadIdx.x & 31) ^ lane_mask);
}

inline unsigned __reduce_min_sync(unsigned mask, unsigned v) {
  require_full_mask(mask);
  uint64_t all[32];
  exchange(v, all);
  unsigned r = 0xffffffffu;
  for (uint64_t x : all) r = static_cast<unsigned>(x) < r ? static_cast<unsigned>(x) : r;
  return r;
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v) {
  require_full_mask(mask);
  uint64_t all[32];
  exchange(v, all);
  unsigned r = 0;
  for (uint64_t x : all) r = static_cast<unsigned>(x) > r ? static_cast<unsigned>(x) : r;
  return r;
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  require_full_mask(mask);
  this_warp->arrived.arrive_and_wait();
}
inline void __syncthreads() { this_block->arrive_and_wait(); }

inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz(static_cast<unsigned>(v)); }
inline int __ffsll(long long v) { return __builtin_ffsll(v); }
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift & 31));
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
inline unsigned atomicOr(unsigned* p, unsigned v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
inline unsigned long long __ldg(const unsigned long long* p) { return *p; }

// Runs kernel() as the threads of blocks [first, first + count) of a grid of `blocks` x `threads`, all at once.
template <typename Kernel>
void launch_blocks(int first, int count, int blocks, int threads, Kernel kernel) {
  gridDim.x = blocks;
  blockDim.x = threads;
  std::vector<std::unique_ptr<std::barrier<>>> block_barriers;
  std::vector<std::unique_ptr<std::vector<EmulatedWarp>>> warps;
  for (int b = 0; b < count; b++) {
    block_barriers.push_back(std::make_unique<std::barrier<>>(threads));
    warps.push_back(std::make_unique<std::vector<EmulatedWarp>>(threads / 32));
  }
  std::vector<std::thread> all;
  for (int b = 0; b < count; b++) {
    for (int t = 0; t < threads; t++) {
      all.emplace_back([&, b, t] {
        threadIdx.x = t;
        blockIdx.x = first + b;
        this_warp = &(*warps[b])[t / 32];
        this_block = block_barriers[b].get();
        kernel();
      });
    }
  }
  for (std::thread& t : all) t.join();
}

// Runs kernel() as every thread of a grid of `blocks` x `threads`.
template <typename Kernel>
void launch(int blocks, int threads, Kernel kernel) {
  launch_blocks(0, blocks, blocks, threads, kernel);
}

// launch() one block after another: for kernels with `extern __shared__` memory, which a harness defines once as an
// ordinary array that every block in turn has to itself.
template <typename Kernel>
void launch_blocks_in_turn(int blocks, int threads, Kernel kernel) {
  for (int b = 0; b < blocks; b++) launch_blocks(b, 1, blocks, threads, kernel);
}

// The features of int192.cuh and aggregate.cu beyond the string kernels'.
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long expected, unsigned long long desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
inline long long atomicMin(long long* p, long long v) {
  long long old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
inline long long atomicMax(long long* p, long long v) {
  long long old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v > old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
inline double atomicAdd(double* p, double v) {
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = __atomic_load_n(bits, __ATOMIC_SEQ_CST), next;
  do {
    double d;
    memcpy(&d, &old, 8);
    d += v;
    memcpy(&next, &d, 8);
  } while (!__atomic_compare_exchange_n(bits, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  unsigned long long prev = old;
  double r;
  memcpy(&r, &prev, 8);
  return r;
}
inline long long __double_as_longlong(double d) {
  long long v;
  memcpy(&v, &d, 8);
  return v;
}
inline double __longlong_as_double(long long v) {
  double d;
  memcpy(&d, &v, 8);
  return d;
}

// The features of partition.cu and spark_murmur3.cuh beyond the others'.
inline unsigned __match_any_sync(unsigned mask, int v) {
  require_full_mask(mask);
  uint64_t all[32];
  exchange(static_cast<uint32_t>(v), all);
  unsigned peers = 0;
  for (int i = 0; i < 32; i++) peers |= static_cast<unsigned>(all[i] == static_cast<uint32_t>(v)) << i;
  return peers;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  const uint64_t both = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift & 31)) >> 32);
}
inline unsigned __float_as_uint(float f) {
  unsigned v;
  memcpy(&v, &f, 4);
  return v;
}

// The features of grouping.cu's block path beyond the others'.
inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }

// The features of sort.cu beyond the others'.
inline unsigned long long atomicOr(unsigned long long* p, unsigned long long v) {
  return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
