// Copies from global to shared memory that do not pass through registers (cp.async, sm_80 and later), so a warp can
// stage data it needs later and keep working while the loads are in flight. Compiled for the host (the CPU emulation
// of the kernel tests), they copy at once.
#pragma once
#include <cstdint>

namespace sparkwarp {

// Starts copying 4 bytes from global `src` to shared `dst`.
__device__ __forceinline__ void copy_async_4(void* dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const uint32_t to = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(src) : "memory");
#else
  *static_cast<uint32_t*>(dst) = *static_cast<const uint32_t*>(src);
#endif
}

// Starts copying 16 bytes from global `src` to shared `dst`, both 16-byte aligned.
__device__ __forceinline__ void copy_async_16(void* dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const uint32_t to = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(src) : "memory");
#else
  __builtin_memcpy(dst, src, 16);
#endif
}

// Closes the group of copies started since the last call.
__device__ __forceinline__ void copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits for this thread's committed copies; other lanes see them after a __syncwarp.
__device__ __forceinline__ void copy_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace sparkwarp
