// Rows handed out to warps from one grid-wide queue, a chunk at a time, and Lane Refill over them (DogQC, for
// strings): a lane whose row is decided takes the next row of its warp's chunk at once, so the warp keeps its 32
// lanes busy until the queue runs dry instead of idling until its slowest row is done. Idle lanes take rows in lane
// order by popc ranks; a row decided on opening (null, or a length the matcher rules out) leaves its lane idle to
// take another in the same call. Rows finish out of order, so whoever decides a row writes its result by row index.
// The chunks also balance the warps: one that meets long strings takes fewer chunks.
#pragma once
#include <cstdint>

#include "sparkwarp/warp.cuh"

namespace sparkwarp {

struct RowQueue {
  unsigned long long* cursor;  // the first row no warp has taken (zeroed by the host)
  int64_t rows;
  int32_t chunk;               // rows a warp takes at a time
  int64_t next;                // warp-uniform: the warp's rows not yet handed to a lane are [next, end)
  int64_t end;
  bool drained;                // warp-uniform: the queue had no rows left

  __device__ __forceinline__ RowQueue(unsigned long long* cursor, int64_t rows, int32_t chunk)
      : cursor(cursor), rows(rows), chunk(chunk), next(0), end(0), drained(false) {}

  // Takes the next chunk for the warp; false when the queue is empty. All 32 lanes call it converged.
  __device__ __forceinline__ bool take_chunk() {
    if (drained) return false;
    unsigned long long first = 0;
    if (lane_id() == 0) first = atomicAdd(cursor, static_cast<unsigned long long>(chunk));
    first = __shfl_sync(FULL_WARP, first, 0);
    next = static_cast<int64_t>(first);
    end = next + chunk < rows ? next + chunk : rows;
    drained = next >= rows;
    return !drained;
  }

  // Lane Refill: every idle lane (busy unset) takes a row and calls open(row), which returns whether the row still
  // needs reading. All 32 lanes call it converged; open runs on the refilled lanes only and must not synchronise.
  template <typename Open>
  __device__ __forceinline__ void refill(bool& busy, Open open) {
    uint32_t idle = __ballot_sync(FULL_WARP, !busy);
    while (idle != 0 && (next < end || take_chunk())) {
      const int idle_count = __popc(idle);
      const int taken = end - next < idle_count ? static_cast<int>(end - next) : idle_count;
      const int rank = __popc(idle & lanemask_lt());
      if (!busy && rank < taken) busy = open(next + rank);
      next += taken;
      idle = __ballot_sync(FULL_WARP, !busy);
    }
  }

  // A warp per row: the warp's next row; false when the queue is empty. All 32 lanes call it converged.
  __device__ __forceinline__ bool next_row(int64_t& row) {
    if (next >= end && !take_chunk()) return false;
    row = next++;
    return true;
  }
};

}  // namespace sparkwarp
