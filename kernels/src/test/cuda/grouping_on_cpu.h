// grouping.cu's kernels as io.sparkwarp.kernels.cuda.CudaStableGrouping launches them (count, the exclusive scan
// scan.cu does, starts, scatter), by the block path or the warp path, for the CPU harnesses partition_on_cpu.cpp and
// sort_on_cpu.cpp. Include after warp_emulation.h and grouping.cu.
#pragma once
#include <cstdint>
#include <vector>

// The block kernels' `extern __shared__` memory: the blocks of a launch take it in turn. Room for 64 KiB, which every
// layout fits (the largest, onesweep.cuh's pair passes, 54312 bytes: sort_on_cpu.cpp asserts it fits).
alignas(16) uint4 sw_group_shared[64 * 1024 / sizeof(uint4)];

// positions[c] = the sum of positions[0, c) for c in [0, cells], as scan.cu's exclusive sum; returns the total.
inline int64_t exclusive_scan_on_cpu(std::vector<int32_t>& positions, int64_t cells) {
  int64_t sum = 0;
  for (int64_t c = 0; c < cells; c++) {
    const int32_t count = positions[c];
    positions[c] = static_cast<int32_t>(sum);
    sum += count;
  }
  positions[cells] = static_cast<int32_t>(sum);
  return sum;
}

// out[0, n) = values[i] (i where values is null) for the rows i grouped stably by ids[i] in [0, buckets), and
// starts[p] (where starts is not null) = bucket p's first position. Tiles of tile_rows rows: a multiple of 32, and of
// block_grouping::CHUNK on the block path (buckets <= block_grouping::BUCKETS). Returns the rows the scan counted.
inline int64_t group_on_cpu(const int32_t* ids, int64_t n, int32_t buckets, const int32_t* values, bool block_path,
                            int32_t tile_rows, int32_t* out, int32_t* starts) {
  const int64_t tiles = (n + tile_rows - 1) / tile_rows;
  const int64_t cells = tiles * buckets;
  // the block path's count writes every cell itself, so garbage there must not matter
  std::vector<int32_t> positions(cells + 1, block_path ? -7 : 0);
  // the block path: two blocks where there are two tiles, so that a block loops over tiles
  const int blocks = tiles < 2 ? 1 : 2;
  const int threads = sparkwarp::block_grouping::THREADS;
  if (block_path) {
    launch_blocks_in_turn(blocks, threads, [&] {
      sw_group_block_count(ids, n, tile_rows, tiles, buckets, positions.data());
    });
  } else {
    launch(2, 64, [&] { sw_group_count(ids, n, tile_rows, tiles, positions.data()); });
  }
  const int64_t sum = exclusive_scan_on_cpu(positions, cells);
  if (starts != nullptr) launch(2, 64, [&] { sw_group_starts(positions.data(), tiles, buckets, starts); });
  if (block_path) {
    launch_blocks_in_turn(blocks, threads, [&] {
      sw_group_block_scatter(ids, n, tile_rows, tiles, buckets, positions.data(), values, out);
    });
  } else {
    launch(2, 64, [&] { sw_group_scatter(ids, n, tile_rows, tiles, positions.data(), values, out); });
  }
  return sum;
}
