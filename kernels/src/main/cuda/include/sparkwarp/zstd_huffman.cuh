// Huffman-coded literals of Zstandard (RFC 8878, "Huffman Tree Description" and "Huffman-coded Streams"): the
// weights (4-bit direct or FSE-compressed) read by one lane, the decoding table built by the warp in shared memory
// (symbols of one weight take consecutive runs of cells), and the streams decoded a lane each (1 or 4 lanes).
#pragma once
#include <cstdint>
#include "parquet_status.cuh"
#include "warp.cuh"
#include "zstd_bits.cuh"
#include "zstd_fse.cuh"

namespace sparkwarp {

// Longest Huffman code (the format's Max_Number_of_Bits).
constexpr int ZSTD_HUF_MAX_BITS = 11;

// A literals decoding table: cell = the next max_bits bits of a stream; symbol | code length << 8.
struct ZstdHuffmanTable {
  uint16_t cells[1 << ZSTD_HUF_MAX_BITS];
  int32_t max_bits;  // 0 until a table was read (a treeless literals section needs one)
};

// What reading a tree description needs besides the table.
struct ZstdHuffmanScratch {
  uint8_t weights[256];
  uint16_t start[256];        // each symbol's first cell
  ZstdFseCell fse[64];        // the weights' FSE table (accuracy log at most 6)
  ZstdFseScratch distribution;
  int32_t max_bits;           // of the weights read last
};

// Reads the FSE-compressed weights of a tree description (`header` > 0 bytes at src, the first `described` of them the
// FSE table description, table already built) into scratch->weights (one lane); returns their count, or a negative
// status. As the reference decoder: a symbol of each of two states in turn until an update reads past the stream's
// start, then the other state's symbol ends the weights.
__device__ int zstd_huffman_fse_weights(const uint8_t* src, int header, int64_t described, int log,
                                        ZstdHuffmanScratch* scratch) {
  ZstdBackwardBits bits;
  if (!bits.init(src + described, header - described)) return -PQ_BAD_FRAME;
  ZstdFseState state[2];
  state[0].init(scratch->fse, log, &bits);
  state[1].init(scratch->fse, log, &bits);
  for (int count = 0;; count++) {
    if (count > 253) return -PQ_BAD_FRAME;
    ZstdFseState& s = state[count & 1];
    scratch->weights[count] = s.symbol();
    s.update(&bits);
    if (bits.unread() < 0) {
      scratch->weights[count + 1] = state[(count + 1) & 1].symbol();
      return count + 2;
    }
  }
}

// Adds the implied last weight, which completes the sum of 2^(weight - 1) to a power of two, to the `count` weights
// read and checks the code is complete (one lane). Returns the symbol count, or a negative status.
__device__ int zstd_huffman_complete(ZstdHuffmanScratch* scratch, int count) {
  uint32_t total = 0;
  for (int k = 0; k < count; k++) {
    const int w = scratch->weights[k];
    if (w > ZSTD_HUF_MAX_BITS + 1) return -PQ_BAD_FRAME;
    total += w > 0 ? 1u << (w - 1) : 0u;
  }
  if (total == 0) return -PQ_BAD_FRAME;
  const int max_bits = zstd_highbit(total) + 1;
  if (max_bits > ZSTD_HUF_MAX_BITS) return -PQ_BAD_FRAME;
  const uint32_t rest = (1u << max_bits) - total;
  if ((rest & (rest - 1)) != 0) return -PQ_BAD_FRAME;
  scratch->weights[count++] = static_cast<uint8_t>(zstd_highbit(rest) + 1);
  int ones = 0;
  for (int k = 0; k < count; k++) ones += scratch->weights[k] == 1;
  if (ones < 2 || (ones & 1) != 0) return -PQ_BAD_FRAME;  // a complete code has an even number of longest codes
  scratch->max_bits = max_bits;
  return count;
}

// Reads a tree description at [src, src + len) into scratch (weights, max_bits); all lanes call it: lane 0 reads,
// the warp builds the FSE table of compressed weights. Returns on every lane the bytes the description takes and
// the symbol count in *symbols, or a negative status.
__device__ int64_t zstd_huffman_weights(const uint8_t* src, int64_t len, ZstdHuffmanScratch* scratch,
                                        int* symbols) {
  if (len < 1) return -PQ_TRUNCATED;
  const int header = src[0];
  const int64_t taken = header >= 128 ? 1 + (header - 127 + 1) / 2 : 1 + header;
  if (taken > len) return -PQ_TRUNCATED;
  int log = 0;
  int64_t described = 0;
  if (header < 128) {
    if (lane_id() == 0) described = zstd_fse_read_counts(src + 1, header, 63, 6, &scratch->distribution, &log);
    described = __shfl_sync(FULL_WARP, described, 0);
    if (described < 0) return described;
    log = __shfl_sync(FULL_WARP, log, 0);
    zstd_fse_build(&scratch->distribution, 63, log, scratch->fse);
  }
  int count = 0;
  if (lane_id() == 0) {
    if (header >= 128) {  // 4 bits a weight, the first in the high nibble
      count = header - 127;
      for (int k = 0; k < count; k++) scratch->weights[k] = (src[1 + k / 2] >> (k % 2 == 0 ? 4 : 0)) & 15;
    } else {
      count = zstd_huffman_fse_weights(src + 1, header, described, log, scratch);
    }
    if (count > 0) count = zstd_huffman_complete(scratch, count);
  }
  count = __shfl_sync(FULL_WARP, count, 0);
  __syncwarp();
  if (count < 0) return count;
  *symbols = count;
  return taken;
}

// Builds the table of scratch->weights (`symbols` of them, scratch->max_bits = log2 of their total) with the warp: the
// cells of weight 1 first, then weight 2's..., in each weight the symbols in order, 2^(weight - 1) cells each.
__device__ void zstd_huffman_build(ZstdHuffmanScratch* scratch, int symbols, ZstdHuffmanTable* t) {
  const int max_bits = scratch->max_bits;
  const int lane = lane_id();
  if (lane == 0) {
    uint32_t rank[ZSTD_HUF_MAX_BITS + 2] = {0};
    for (int s = 0; s < symbols; s++) {
      const int w = scratch->weights[s];
      rank[w] += w > 0 ? 1u << (w - 1) : 0u;
    }
    uint32_t next = 0;
    for (int w = 1; w <= max_bits; w++) {
      const uint32_t cells = rank[w];
      rank[w] = next;
      next += cells;
    }
    for (int s = 0; s < symbols; s++) {
      const int w = scratch->weights[s];
      if (w > 0) {
        scratch->start[s] = static_cast<uint16_t>(rank[w]);
        rank[w] += 1u << (w - 1);
      }
    }
    t->max_bits = max_bits;
  }
  __syncwarp();
  for (int s = 0; s < symbols; s++) {
    const int w = scratch->weights[s];
    if (w == 0) continue;
    const uint16_t cell = static_cast<uint16_t>(s | ((max_bits + 1 - w) << 8));
    for (int k = lane; k < (1 << (w - 1)); k += 32) t->cells[scratch->start[s] + k] = cell;
  }
  __syncwarp();
}

// Decodes one stream [src, src + len) into exactly n bytes at out (one lane); the stream must be read exactly.
__device__ int32_t zstd_huffman_stream(const ZstdHuffmanTable* t, const uint8_t* src, int64_t len, uint8_t* out,
                                       int64_t n) {
  ZstdBackwardBits bits;
  if (!bits.init(src, len)) return PQ_BAD_FRAME;
  const int max_bits = t->max_bits;
  for (int64_t i = 0; i < n; i++) {
    const uint16_t cell = t->cells[bits.peek(max_bits)];
    out[i] = static_cast<uint8_t>(cell);
    bits.skip(cell >> 8);
  }
  return bits.unread() == 0 ? PQ_OK : PQ_BAD_FRAME;
}

// Decodes a Huffman-coded literals section's streams ([src, src + len): 1 stream, or a 6-byte jump table and 4)
// into exactly n bytes at out, stream k on lane k. Every lane returns the status.
__device__ int32_t zstd_huffman_literals(const ZstdHuffmanTable* t, const uint8_t* src, int64_t len, bool four,
                                         uint8_t* out, int64_t n) {
  const int lane = lane_id();
  int32_t err = PQ_OK;
  if (!four) {
    if (lane == 0) err = zstd_huffman_stream(t, src, len, out, n);
    return __shfl_sync(FULL_WARP, err, 0);
  }
  if (len < 10) return PQ_BAD_FRAME;  // the jump table and a byte a stream
  const int64_t sizes[3] = {src[0] | (src[1] << 8), src[2] | (src[3] << 8), src[4] | (src[5] << 8)};
  const int64_t last = len - 6 - sizes[0] - sizes[1] - sizes[2];
  if (last < 0) return PQ_BAD_FRAME;
  const int64_t segment = (n + 3) / 4;
  if (lane < 4) {
    int64_t from = 6;
    for (int k = 0; k < lane; k++) from += sizes[k];
    const int64_t size = lane < 3 ? sizes[lane] : last;
    const int64_t count = lane < 3 ? segment : n - 3 * segment;
    err = count < 0 ? PQ_BAD_FRAME : zstd_huffman_stream(t, src + from, size, out + lane * segment, count);
  }
  const uint32_t bad = __ballot_sync(FULL_WARP, err != PQ_OK);
  return bad == 0 ? PQ_OK : __shfl_sync(FULL_WARP, err, __ffs(static_cast<int>(bad)) - 1);
}

}  // namespace sparkwarp
