// FSE (finite state entropy) tables of Zstandard (RFC 8878, "FSE Table Description" and "From normalized
// distribution to decoding tables"): the description's normalized counts read by one lane, the decoding table built
// by the warp in shared memory (the spread of symbols serial only when low-probability symbols make it skip cells;
// each cell's next state ranked across lanes), and one decoding step.
#pragma once
#include <cstdint>
#include "parquet_status.cuh"
#include "warp.cuh"
#include "zstd_bits.cuh"

namespace sparkwarp {

// A decoding table cell: the symbol, and the next state = base + the next nb_bits bits.
struct ZstdFseCell {
  uint16_t base;
  uint8_t symbol;
  uint8_t nb_bits;
};

// Symbols of a distribution, at most (the match length codes').
constexpr int ZSTD_FSE_MAX_SYMBOLS = 53;

// A distribution being turned into a table: normalized counts (-1: "less than 1") and each symbol's next state.
struct ZstdFseScratch {
  int16_t norm[64];
  uint16_t next[64];
};

// Reads the table description at [src, src + len) (one lane): the accuracy log (at most max_log) and the counts of
// symbols 0..max_symbol into scratch->norm (the rest 0). Returns the bytes it takes, or a negative status.
__device__ int64_t zstd_fse_read_counts(const uint8_t* src, int64_t len, int max_symbol, int max_log,
                                        ZstdFseScratch* scratch, int* log) {
  ZstdForwardBits in{src, len, 0};
  *log = static_cast<int>(in.read(4)) + 5;
  if (*log > max_log) return -PQ_BAD_FRAME;
  for (int s = 0; s < 64; s++) scratch->norm[s] = 0;
  int remaining = (1 << *log) + 1;
  int threshold = 1 << *log;
  int nb_bits = *log + 1;
  int symbol = 0;
  bool previous0 = false;
  while (remaining > 1 && symbol <= max_symbol) {
    if (previous0) {  // 2-bit repeat fields of zero counts, 3 meaning another field follows
      int zeros = 0;
      uint32_t field;
      while ((field = in.read(2)) == 3) zeros += 3;  // ends: bits past the description read 0
      symbol += zeros + static_cast<int>(field);
      if (symbol > max_symbol) break;
    }
    const int max = 2 * threshold - 1 - remaining;
    int count;
    const uint32_t low = in.peek(nb_bits - 1);
    if (static_cast<int>(low) < max) {
      count = static_cast<int>(low);
      in.pos += nb_bits - 1;
    } else {
      count = static_cast<int>(in.peek(nb_bits));
      if (count >= threshold) count -= max;
      in.pos += nb_bits;
    }
    count--;  // -1: a probability below 1
    remaining -= count < 0 ? -count : count;
    scratch->norm[symbol++] = static_cast<int16_t>(count);
    previous0 = count == 0;
    while (remaining < threshold && threshold > 1) {
      nb_bits--;
      threshold >>= 1;
    }
  }
  if (remaining != 1 || symbol > max_symbol + 1) return -PQ_BAD_FRAME;
  if (in.bytes() > len) return -PQ_TRUNCATED;
  return in.bytes();
}

// Builds the decoding table of scratch->norm (symbols 0..max_symbol, accuracy `log`) into table[0, 2^log) with the
// whole warp; returns with the table visible to every lane.
__device__ void zstd_fse_build(ZstdFseScratch* scratch, int max_symbol, int log, ZstdFseCell* table) {
  const int lane = lane_id();
  const int size = 1 << log;
  const int mask = size - 1;
  const int step = (size >> 1) + (size >> 3) + 3;
  int high = size - 1;  // cells above it hold the low-probability symbols
  bool any_low = false;
  if (lane == 0) {
    int placed = 0;  // the positive counts before each symbol, kept in next[] until the spread
    for (int s = 0; s <= max_symbol; s++) {
      const int n = scratch->norm[s];
      if (n == -1) {
        table[high--].symbol = static_cast<uint8_t>(s);
        any_low = true;
      }
      scratch->next[s] = static_cast<uint16_t>(placed);
      placed += n > 0 ? n : 0;
    }
    if (any_low) {  // the spread skips the cells above `high`: serial
      int position = 0;
      for (int s = 0; s <= max_symbol; s++) {
        for (int k = 0; k < scratch->norm[s]; k++) {
          table[position].symbol = static_cast<uint8_t>(s);
          do position = (position + step) & mask; while (position > high);
        }
      }
    }
  }
  any_low = __shfl_sync(FULL_WARP, static_cast<int>(any_low), 0) != 0;
  __syncwarp();
  if (!any_low) {  // the k-th placed cell is k * step (mod size): each symbol's cells at once
    for (int s = 0; s <= max_symbol; s++) {
      const int first = scratch->next[s];
      for (int k = lane; k < scratch->norm[s]; k += 32) {
        table[((first + k) * step) & mask].symbol = static_cast<uint8_t>(s);
      }
    }
  }
  __syncwarp();
  for (int s = lane; s <= max_symbol; s += 32) {
    scratch->next[s] = static_cast<uint16_t>(scratch->norm[s] == -1 ? 1 : scratch->norm[s]);
  }
  __syncwarp();
  // a cell's next state: its symbol's count plus the symbol's cells before it; 32 cells a step, ranked by ballots
  for (int tile = 0; tile < size; tile += 32) {
    const int u = tile + lane;
    const bool inside = u < size;
    const uint32_t symbol = inside ? table[u].symbol : 0xffu;
    const uint32_t peers = warp_match_low_bits(symbol, 8);
    const uint32_t state = scratch->next[symbol & 63] + __popc(peers & lanemask_lt());
    __syncwarp();
    if (inside) {
      const int nb = log - zstd_highbit(state);
      table[u].nb_bits = static_cast<uint8_t>(nb);
      table[u].base = static_cast<uint16_t>((state << nb) - size);
      if ((peers >> lane) == 1u) scratch->next[symbol] = static_cast<uint16_t>(state + 1);  // the last peer
    }
    __syncwarp();
  }
}

// Table of one symbol (RLE mode): every state decodes it and reads no bits.
__device__ __forceinline__ void zstd_fse_single(uint8_t symbol, ZstdFseCell* table) {
  if (lane_id() == 0) table[0] = {0, symbol, 0};
  __syncwarp();
}

// A decoder's state in its table.
struct ZstdFseState {
  const ZstdFseCell* table;
  uint32_t state;

  __device__ __forceinline__ void init(const ZstdFseCell* t, int log, ZstdBackwardBits* bits) {
    table = t;
    state = bits->read(log);
  }
  __device__ __forceinline__ uint8_t symbol() const { return table[state].symbol; }
  __device__ __forceinline__ void update(ZstdBackwardBits* bits) {
    const ZstdFseCell c = table[state];
    state = c.base + bits->read(c.nb_bits);
  }
};

}  // namespace sparkwarp
