// The CUDA features the kernels use, emulated on the CPU so that CI (which has no GPU) runs the kernels' own
// code: every GPU thread is an OS thread (kept for the next launch), all blocks of a launch run at once, warp
// collectives and __syncthreads are barriers. A collective must be reached by all 32 lanes with the full mask, as on
// the GPU; one that a lane skips hangs here instead of misbehaving silently (the test's timeout reports it). Used by
// strings_on_cpu.cpp, parquet_on_cpu.cpp, int192_on_cpu.cpp, aggregate_on_cpu.cpp, partition_on_cpu.cpp and
// sort_on_cpu.cpp (the last two through grouping_on_cpu.h), and substring_on_cpu.cpp.
#pragma once
#include <atomic>
#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
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

// What the lanes of one warp exchange at a collective: two sets of values used in turn, so that one barrier a
// collective suffices (a lane writes the set of collective k + 1 only after every lane passed k's barrier, so after
// every lane read the set of k - 1).
struct EmulatedWarp {
  std::barrier<> arrived{32};
  uint64_t value[2][32];
};
// Which of its warp's value sets the lane's next collective uses.
inline thread_local int this_phase;
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
  uint64_t (&set)[32] = this_warp->value[this_phase];
  this_phase ^= 1;
  set[threadIdx.x & 31] = v;
  this_warp->arrived.arrive_and_wait();
  memcpy(all, set, sizeof all);
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

// The OS threads that run the lanes of launches, kept from one launch to the next: creating a thread for every lane
// of every launch took most of the emulation's time.
class LaneThreads {
 public:
  ~LaneThreads() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    started_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  // Runs lane(i) for every i in [0, count), each on a thread of its own, all at once; returns when all returned.
  void run(int count, const std::function<void(int)>& lane) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (static_cast<int>(threads_.size()) < count) {
      const int index = static_cast<int>(threads_.size());
      threads_.emplace_back([this, index] { work(index); });
    }
    lane_ = &lane;
    count_ = count;
    finished_ = 0;
    generation_++;
    started_.notify_all();
    done_.wait(lock, [&] { return finished_ == count_; });
    lane_ = nullptr;
  }

 private:
  void work(int index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      started_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= count_) continue;
      const std::function<void(int)>* lane = lane_;
      lock.unlock();
      (*lane)(index);
      lock.lock();
      if (++finished_ == count_) done_.notify_one();
    }
  }

  std::mutex mutex_;
  std::condition_variable started_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* lane_ = nullptr;
  int count_ = 0, finished_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
};
inline LaneThreads lane_threads;

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
  lane_threads.run(count * threads, [&](int i) {
    const int b = i / threads, t = i % threads;
    threadIdx.x = t;
    blockIdx.x = first + b;
    this_warp = &(*warps[b])[t / 32];
    this_phase = 0;
    this_block = block_barriers[b].get();
    kernel();
  });
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
