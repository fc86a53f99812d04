// grouping.cu's kernels as io.sparkwarp.kernels.cuda.CudaStableGrouping launches them (count, the exclusive scan
// scan.cu does, starts, scatter), by the block path or the warp path, for the CPU harnesses partition_on_cpu.cpp and
// sort_on_cpu.cpp; and the block path over other sources and payloads (block_grouping.cuh), as groupBlocks launches
// it. Include after warp_emulation.h and grouping.cu.
#pragma once
#include <cstdint>
#include <vector>

// The block kernels' `extern __shared__` memory: the blocks of a launch take it in turn. Room for the largest
// layout, the pair passes' (8 bytes staged a row).
alignas(16) uint4 sw_group_shared[sizeof(sparkwarp::block_grouping::ScatterShared<8>) / sizeof(uint4) + 1];

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

// The block path as CudaStableGrouping.groupBlocks launches it over tiles of tile_rows rows (a multiple of
// block_grouping::CHUNK): count(tile_rows, tiles, counts) by blocks of block_grouping::THREADS, the exclusive scan of
// the bucket-major matrix, then scatter(tile_rows, tiles, positions); starts[p] (where not null) = bucket p's first
// position. Returns the rows the scan counted.
template <typename Count, typename Scatter>
inline int64_t group_blocks_on_cpu(int64_t n, int32_t buckets, int32_t tile_rows, int32_t* starts, Count count,
                                   Scatter scatter) {
  const int64_t tiles = (n + tile_rows - 1) / tile_rows;
  const int64_t cells = tiles * buckets;
  // the count writes every cell itself, so garbage there must not matter
  std::vector<int32_t> positions(cells + 1, -7);
  // two blocks where there are two tiles, so that a block loops over tiles
  const int blocks = tiles < 2 ? 1 : 2;
  const int threads = sparkwarp::block_grouping::THREADS;
  launch_blocks_in_turn(blocks, threads, [&] { count(tile_rows, tiles, positions.data()); });
  const int64_t sum = exclusive_scan_on_cpu(positions, cells);
  if (starts != nullptr) launch(2, 64, [&] { sw_group_starts(positions.data(), tiles, buckets, starts); });
  launch_blocks_in_turn(blocks, threads, [&] { scatter(tile_rows, tiles, positions.data()); });
  return sum;
}

// out[0, n) = values[i] (i where values is null) for the rows i grouped stably by ids[i] in [0, buckets), and
// starts[p] (where starts is not null) = bucket p's first position. Tiles of tile_rows rows: a multiple of 32, and of
// block_grouping::CHUNK on the block path (buckets <= block_grouping::BUCKETS). Returns the rows the scan counted.
inline int64_t group_on_cpu(const int32_t* ids, int64_t n, int32_t buckets, const int32_t* values, bool block_path,
                            int32_t tile_rows, int32_t* out, int32_t* starts) {
  if (block_path) {
    return group_blocks_on_cpu(
        n, buckets, tile_rows, starts,
        [&](int32_t rows, int64_t tiles, int32_t* counts) {
          sw_group_block_count(ids, n, rows, tiles, buckets, counts);
        },
        [&](int32_t rows, int64_t tiles, const int32_t* positions) {
          sw_group_block_scatter(ids, n, rows, tiles, buckets, positions, values, out);
        });
  }
  const int64_t tiles = (n + tile_rows - 1) / tile_rows;
  const int64_t cells = tiles * buckets;
  std::vector<int32_t> positions(cells + 1, 0);
  launch(2, 64, [&] { sw_group_count(ids, n, tile_rows, tiles, positions.data()); });
  const int64_t sum = exclusive_scan_on_cpu(positions, cells);
  if (starts != nullptr) launch(2, 64, [&] { sw_group_starts(positions.data(), tiles, buckets, starts); });
  launch(2, 64, [&] { sw_group_scatter(ids, n, tile_rows, tiles, positions.data(), values, out); });
  return sum;
}
