// Aborts a benchmark harness with the failing call and CUDA's message: the harnesses have no error path.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cudaError_t e = (call);                                                                           \
    if (e != cudaSuccess) {                                                                           \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e));           \
      exit(1);                                                                                        \
    }                                                                                                 \
  } while (0)
