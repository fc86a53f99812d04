// The sequences section of a Zstandard compressed block (RFC 8878, "Sequences Section" and "Sequence Execution"):
// its header and the literal length, offset and match length tables (predefined, RLE, FSE-described or repeated)
// built by the warp, the sequences decoded by one lane (serial by the format: every state update reads the bits the
// one before left) 32 at a time into shared memory, and each 32 executed as one round of lz_round.cuh, a lane a
// sequence: literal copies at once, matches by Multi-Round Resolution, as Snappy's and LZ4's elements.
#pragma once
#include <cstdint>
#include "lz_round.cuh"
#include "lz_window.cuh"
#include "parquet_status.cuh"
#include "warp.cuh"
#include "zstd_bits.cuh"
#include "zstd_fse.cuh"

namespace sparkwarp {

// A decoded sequence: literals, then a match of `match` bytes `offset` back (clamped to 32 bits: farther than any
// output, it still fails lz_round's check).
struct ZstdSequence {
  uint32_t lit, match, offset;
};

// Where a block's literals are: raw ones stay in the input, others are decoded to the end of the frame's output,
// past what its sequences will have written when they read them.
struct ZstdLiterals {
  const uint8_t* src;
  int64_t src_len;  // bound of src for the parse window
  int64_t pos;      // the first literal, src[pos]
  int64_t size;
  bool in_output;   // src is the output: a round's writes must stay below its first literal
};

// The three code tables of a frame, its repeat offsets, and a round of decoded sequences.
struct ZstdSequenceTables {
  ZstdFseCell ll[1 << 9], ml[1 << 9], of[1 << 8];
  int32_t ll_log, ml_log, of_log;
  bool built;        // whether a block of this frame built them (the repeat mode reuses them)
  uint64_t rep[3];   // repeat offsets
  ZstdFseScratch scratch;
  ZstdSequence round[33];  // a round's sequences, then one decoded for the next round
};

// Literal length and match length codes: baseline and extra bits (RFC 8878, "Literals_Length_Code" and
// "Match_Length_Code" tables).
__device__ __forceinline__ void zstd_ll_code(uint32_t code, uint32_t* base, int* bits) {
  if (code < 16) { *base = code; *bits = 0; }
  else if (code < 20) { *base = 16 + 2 * (code - 16); *bits = 1; }
  else if (code < 22) { *base = 24 + 4 * (code - 20); *bits = 2; }
  else if (code < 24) { *base = 32 + 8 * (code - 22); *bits = 3; }
  else if (code == 24) { *base = 48; *bits = 4; }
  else { *bits = static_cast<int>(code) - 19; *base = 1u << *bits; }
}

__device__ __forceinline__ void zstd_ml_code(uint32_t code, uint32_t* base, int* bits) {
  if (code < 32) { *base = code + 3; *bits = 0; }
  else if (code < 36) { *base = 35 + 2 * (code - 32); *bits = 1; }
  else if (code < 38) { *base = 43 + 4 * (code - 36); *bits = 2; }
  else if (code < 40) { *base = 51 + 8 * (code - 38); *bits = 3; }
  else if (code < 42) { *base = 67 + 16 * (code - 40); *bits = 4; }
  else if (code == 42) { *base = 99; *bits = 5; }
  else { *bits = static_cast<int>(code) - 36; *base = (1u << *bits) + 3; }
}

// The three code kinds: their largest symbol, largest accuracy log and predefined distribution.
enum ZstdCodeKind { ZSTD_LL = 0, ZSTD_OF = 1, ZSTD_ML = 2 };

__device__ __forceinline__ int zstd_max_symbol(int kind) { return kind == ZSTD_LL ? 35 : kind == ZSTD_OF ? 31 : 52; }
__device__ __forceinline__ int zstd_max_log(int kind) { return kind == ZSTD_OF ? 8 : 9; }

// The predefined distribution of `kind` into s->norm; returns its accuracy log and sets *max_symbol.
__device__ int zstd_default_counts(int kind, ZstdFseScratch* s, int* max_symbol) {
  const int16_t ll[36] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                          2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
  const int16_t ml[53] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
  const int16_t of[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};
  const int16_t* counts = kind == ZSTD_LL ? ll : kind == ZSTD_OF ? of : ml;
  *max_symbol = kind == ZSTD_LL ? 35 : kind == ZSTD_OF ? 28 : 52;
  for (int k = lane_id(); k < 64; k += 32) s->norm[k] = k <= *max_symbol ? counts[k] : 0;
  __syncwarp();
  return kind == ZSTD_OF ? 5 : 6;
}

// Sets up the table of `kind` from its compression mode (0 predefined, 1 RLE, 2 FSE-described, 3 repeat), reading
// what the mode stores from [src + *pos, src + end). All lanes call it; returns the status on every lane.
__device__ int32_t zstd_code_table(int kind, int mode, const uint8_t* src, int64_t* pos, int64_t end,
                                   ZstdSequenceTables* t) {
  ZstdFseCell* table = kind == ZSTD_LL ? t->ll : kind == ZSTD_OF ? t->of : t->ml;
  int32_t* log = kind == ZSTD_LL ? &t->ll_log : kind == ZSTD_OF ? &t->of_log : &t->ml_log;
  if (mode == 3) return t->built ? PQ_OK : PQ_BAD_FRAME;
  if (mode == 1) {
    if (*pos >= end) return PQ_TRUNCATED;
    const uint8_t symbol = src[(*pos)++];
    if (symbol > zstd_max_symbol(kind)) return PQ_BAD_FRAME;
    zstd_fse_single(symbol, table);
    if (lane_id() == 0) *log = 0;
    __syncwarp();
    return PQ_OK;
  }
  int max_symbol = zstd_max_symbol(kind);
  int accuracy = 0;
  if (mode == 0) {
    accuracy = zstd_default_counts(kind, &t->scratch, &max_symbol);
  } else {
    int64_t taken = 0;
    if (lane_id() == 0) {
      taken = zstd_fse_read_counts(src + *pos, end - *pos, max_symbol, zstd_max_log(kind), &t->scratch, &accuracy);
    }
    taken = __shfl_sync(FULL_WARP, taken, 0);
    accuracy = __shfl_sync(FULL_WARP, accuracy, 0);
    __syncwarp();
    if (taken < 0) return static_cast<int32_t>(-taken);
    *pos += taken;
  }
  zstd_fse_build(&t->scratch, max_symbol, accuracy, table);
  if (lane_id() == 0) *log = accuracy;
  __syncwarp();
  return PQ_OK;
}

// Lane 0's decoder of one block's sequences.
struct ZstdSequenceDecoder {
  ZstdBackwardBits bits;
  ZstdFseState ll, of, ml;

  // The next sequence; `last` skips the state updates, which the last sequence has no bits for.
  __device__ ZstdSequence next(uint64_t* rep, bool last) {
    const uint32_t of_code = of.symbol();
    uint32_t ll_base, ml_base;
    int ll_bits, ml_bits;
    zstd_ll_code(ll.symbol(), &ll_base, &ll_bits);
    zstd_ml_code(ml.symbol(), &ml_base, &ml_bits);
    const uint64_t value = (1ull << of_code) + bits.read(static_cast<int>(of_code));
    const uint32_t match = ml_base + bits.read(ml_bits);
    const uint32_t lit = ll_base + bits.read(ll_bits);
    uint64_t offset;
    if (value > 3) {
      offset = value - 3;
      rep[2] = rep[1];
      rep[1] = rep[0];
    } else {  // a repeat offset; without literals the codes shift by one
      const uint64_t index = value - 1 + (lit == 0 ? 1 : 0);
      if (index == 0) {
        offset = rep[0];
      } else {
        offset = index == 3 ? rep[0] - 1 : rep[index];
        if (offset == 0) offset = ~0ull;  // as the reference decoder: fails as a match before the output
        if (index != 1) rep[2] = rep[1];
        rep[1] = rep[0];
      }
    }
    rep[0] = offset;
    if (!last) {
      ll.update(&bits);
      ml.update(&bits);
      of.update(&bits);
    }
    return {lit, match, offset > 0xffffffffull ? 0xffffffffu : static_cast<uint32_t>(offset)};
  }
};

// Writes the n literals at src[pos..] to dst[*out..] (and the ring) with the warp, as a round of one element. When the
// literals are in the output (src == dst, pos >= *out: the ranges may overlap), a step of the warp reads 32 of them
// before it writes them: each step writes only below what later steps read.
__device__ int32_t zstd_copy_literals(const uint8_t* src, int64_t src_len, int64_t pos, int64_t n, uint8_t* dst,
                                      int64_t dst_len, int64_t* out, uint8_t* ring, int32_t ring_bytes) {
  if (n == 0) return PQ_OK;
  if (src != dst) {
    const LzWindow window = LzWindow::load(src, src_len, pos);
    const LzElement e{lane_id() == 0, 0, n, 0, 0};
    return lz_round_warp(src, pos, window, e, dst, dst_len, out, ring, ring_bytes);
  }
  if (*out + n > dst_len) return PQ_OVERRUN;
  const uint32_t mask = static_cast<uint32_t>(ring_bytes) - 1;
  for (int64_t i = lane_id(); i - lane_id() < n; i += 32) {
    const uint8_t b = i < n ? dst[pos + i] : 0;
    __syncwarp();
    if (i < n) {
      dst[*out + i] = b;
      ring[(*out + i) & mask] = b;
    }
    __syncwarp();
  }
  *out += n;
  return PQ_OK;
}

// Decodes `count` sequences from the backward bitstream [src, src + len) and executes them with the block's
// literals into dst (the frame's output, *out bytes written so far), then the literals left. All lanes call it;
// returns the status on every lane.
__device__ int32_t zstd_sequences_warp(const uint8_t* src, int64_t len, int64_t count, ZstdSequenceTables* t,
                                       const ZstdLiterals& lit, uint8_t* dst, int64_t dst_len, int64_t* out,
                                       uint8_t* ring, int32_t ring_bytes) {
  const int lane = lane_id();
  ZstdSequenceDecoder d;  // lane 0's
  int32_t err = PQ_OK;
  if (lane == 0 && !d.bits.init(src, len)) err = PQ_BAD_FRAME;
  if (lane == 0 && err == PQ_OK) {
    d.ll.init(t->ll, t->ll_log, &d.bits);
    d.of.init(t->of, t->of_log, &d.bits);
    d.ml.init(t->ml, t->ml_log, &d.bits);
  }
  err = __shfl_sync(FULL_WARP, err, 0);
  if (err != PQ_OK) return err;
  int64_t lit_pos = lit.pos;  // the next literal
  int64_t decoded = 0;        // sequences decoded by lane 0
  bool carried = false;       // lane 0: round[32] holds a sequence decoded for this round already
  while (true) {
    int n = 0;
    bool solo = false;  // one sequence whose writes reach its own literals
    if (lane == 0) {
      // a round: up to 32 sequences; where literals are in the output, only while its writes stay below its
      // first literal (the sequence that would pass it waits for the next round)
      int64_t written = *out;
      int64_t lits = lit_pos - lit.pos;
      while (n < 32 && (carried || decoded < count)) {
        ZstdSequence s = t->round[32];
        if (!carried) {
          s = d.next(t->rep, decoded + 1 == count);
          decoded++;
          if (decoded == count && d.bits.unread() != 0) err = PQ_BAD_FRAME;
          if (lits + s.lit > lit.size) err = PQ_BAD_FRAME;  // more literals than the section holds
        }
        carried = false;
        if (err != PQ_OK) break;
        const bool overlaps = lit.in_output && written + s.lit + s.match > lit_pos;
        if (n > 0 && overlaps) {
          t->round[32] = s;
          carried = true;
          break;
        }
        t->round[n++] = s;
        if (overlaps) {  // a round of its own, its literals moved apart
          solo = true;
          break;
        }
        written += static_cast<int64_t>(s.lit) + s.match;
        lits += s.lit;
      }
    }
    err = __shfl_sync(FULL_WARP, err, 0);
    n = __shfl_sync(FULL_WARP, n, 0);
    solo = __shfl_sync(FULL_WARP, static_cast<int>(solo), 0) != 0;
    __syncwarp();
    if (err != PQ_OK) return err;
    if (n == 0) break;
    ZstdSequence s = lane < n ? t->round[lane] : ZstdSequence{0, 0, 0};
    if (solo) {
      const uint32_t moved = __shfl_sync(FULL_WARP, s.lit, 0);
      err = zstd_copy_literals(dst, dst_len, lit_pos, moved, dst, dst_len, out, ring, ring_bytes);
      if (err != PQ_OK) return err;
      lit_pos += moved;
      s.lit = 0;
    }
    const int64_t lit_end = warp_inclusive_sum(static_cast<int64_t>(s.lit));
    const LzWindow window = LzWindow::load(lit.src, lit.src_len, lit_pos);
    const LzElement e{lane < n, lit_end - s.lit, s.lit, s.match, s.offset};
    __syncwarp();  // lane 0 rewrites the round next
    err = lz_round_warp(lit.src, lit_pos, window, e, dst, dst_len, out, ring, ring_bytes);
    if (err != PQ_OK) return err;
    lit_pos += __shfl_sync(FULL_WARP, lit_end, 31);
  }
  // the literals after the last sequence
  return zstd_copy_literals(lit.src, lit.src_len, lit_pos, lit.pos + lit.size - lit_pos, dst, dst_len, out, ring,
                            ring_bytes);
}

}  // namespace sparkwarp
