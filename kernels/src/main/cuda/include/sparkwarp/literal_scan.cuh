// Which rows of a plain Arrow string column contain a literal, found by the warp streaming the rows' bytes rather than
// a lane walking each row: `LIKE '%x%'` costs a few logic ops per byte this way, with every load coalesced and no lane
// waiting on another's row, where a lane-per-row KMP spends about ten dependent instructions on each byte.
//
// A warp takes a tile of 32-row groups. Its bytes are read as aligned 8-byte words, 32 lanes x 4 words per step, and
// a byte-parallel filter marks the bytes of a word where the literal may start (two of its bytes in place, read from
// the word and the one after it). The few words with candidates are queued and checked in full 32 at a time (Lane
// Refill), and the starts of occurrences set bits in a per-warp bitmap in shared memory, one bit per byte of the tile. Then each lane
// takes rows and looks for a start in [row begin, row end - m]; the 32 answers of a group make one output word.
// A tile of more bytes than the bitmap holds is scanned in windows of the bitmap's size (an occurrence starting in a
// window may end past it: its bytes are read from memory), each row collecting its answer over the windows.
#pragma once
#include <cstdint>

#include "sparkwarp/async_copy.cuh"
#include "sparkwarp/lane_utilisation.cuh"
#include "sparkwarp/string_pieces.cuh"
#include "sparkwarp/swar.cuh"
#include "sparkwarp/warp.cuh"

namespace sparkwarp {

// Bytes of a tile one window covers: the bitmap's bits.
constexpr int32_t SCAN_WINDOW_BYTES = 16384;
// The most rows a tile may have (io.sparkwarp.kernels.cuda.CudaStringPrimitives keeps to it).
constexpr int32_t SCAN_MAX_TILE_ROWS = 512;
// Words a lane has in flight per step: four (1 KB a warp) measured best on the H200 (two: 12% slower).
constexpr int SCAN_WORDS_PER_LANE = 4;
constexpr int32_t SCAN_STEP_WORDS = 32 * SCAN_WORDS_PER_LANE;
// Candidate words a warp holds back: fewer than 32 between steps, plus a step's 128.
constexpr int32_t SCAN_QUEUE = 32 + SCAN_STEP_WORDS;

// A warp's shared memory, in 32-bit words: the bitmap (spare words: tests read a word past the one they need, and
// clearing rounds up to four), the tile's row starts, and the candidate queue (word indices, then their 64-bit
// candidate masks). 6 KB a warp.
namespace scan_scratch {
constexpr int32_t BITMAP = 0;
constexpr int32_t ROW_STARTS = BITMAP + SCAN_WINDOW_BYTES / 32 + 4;
constexpr int32_t QUEUE_WORDS = ROW_STARTS + SCAN_MAX_TILE_ROWS + 4;
constexpr int32_t QUEUE_MASKS = QUEUE_WORDS + SCAN_QUEUE;  // even: 8-byte aligned
constexpr int32_t WORDS = QUEUE_MASKS + 2 * SCAN_QUEUE;
static_assert(ROW_STARTS % 4 == 0 && QUEUE_MASKS % 2 == 0 && WORDS % 4 == 0, "aligned sections and warps");
}  // namespace scan_scratch

// The literal's filter, computed by the host (io.sparkwarp.kernels.cuda.LiteralScan, keep both in step) and passed
// by value, so that it stays in the constant bank instead of taking registers. The filter compares two of the
// literal's first four bytes, the host's guess at the rarest (one for a one-byte literal), which on text leaves a
// candidate in some tens of bytes or fewer.
struct ScanFilter {
  uint64_t head;       // the literal's bytes [0, min(m, 8)) as a little-endian word
  uint64_t head_mask;  // the bytes of head that count
  uint32_t near;       // literal byte near_bits / 8, broadcast to the four bytes of a word
  uint32_t far;        // literal byte far_bits / 8, broadcast
  int32_t near_bits;   // 8 x its position, under 32: the bytes that far on are one funnel shift away
  int32_t far_bits;    // likewise
  int32_t m;           // the literal's length, at least 1
  int32_t padding;     // to a whole 8 bytes
};

// The literal searched for: its filter and, for the full check of literals longer than 8 bytes, its bytes.
struct ScanLiteral {
  const ScanFilter& f;
  const uint8_t* bytes;

  // Bytes of `word` (byte i of the word = byte i of the 16 bytes word, next) where the literal may start, as their
  // high bits: at least every start, since false candidates are checked away (bytes_match_hint). The integer pipe
  // runs at half rate and bounds the scan, so this is a few ops per 32-bit half.
  __device__ __forceinline__ uint64_t candidates(uint64_t word, uint64_t next) const {
    const uint32_t w0 = static_cast<uint32_t>(word), w1 = static_cast<uint32_t>(word >> 32);
    const uint32_t n0 = static_cast<uint32_t>(next);
    const uint32_t lo = bytes_match_hint(__funnelshift_r(w0, w1, f.near_bits), f.near) &
                        bytes_match_hint(__funnelshift_r(w0, w1, f.far_bits), f.far);
    const uint32_t hi = bytes_match_hint(__funnelshift_r(w1, n0, f.near_bits), f.near) &
                        bytes_match_hint(__funnelshift_r(w1, n0, f.far_bits), f.far);
    return (static_cast<uint64_t>(hi) << 32) | lo;
  }

  // Whether the literal starts at byte p of `word`, continuing in `next` and, past those 16 bytes, in memory at
  // `rest` (the byte that follows `next`).
  __device__ __forceinline__ bool starts_at(uint64_t word, uint64_t next, int p, const uint8_t* rest) const {
    const uint64_t window = p == 0 ? word : (word >> (8 * p)) | (next << (64 - 8 * p));
    if (((window ^ f.head) & f.head_mask) != 0) return false;
    for (int32_t i = 8; i < f.m; i++) {  // literals longer than 8 bytes: the rest byte by byte (rare)
      const int32_t at = p + i;  // in the 16 bytes, or in memory from `rest`
      const uint8_t b = at < 16 ? static_cast<uint8_t>((at < 8 ? word : next) >> (8 * (at & 7))) : rest[at - 16];
      if (b != bytes[i]) return false;
    }
    return true;
  }
};

// One warp's tile: bytes [begin, end) of the column's data, read from the aligned word that holds `begin`. Byte
// positions below are relative to that word.
struct ScanTile {
  const unsigned long long* words;  // the tile's first word
  int32_t word_count;
  int32_t first_start;  // begin, relative: the first byte an occurrence may start at
  int32_t last_start;   // end - m, relative: the last (negative when no row can hold the literal)
  int32_t base;         // the column offset of words[0] (Arrow string offsets are int32)

  __device__ __forceinline__ ScanTile(const uint8_t* data, int32_t begin, int32_t end, int32_t m) {
    base = begin & ~7;
    words = reinterpret_cast<const unsigned long long*>(data + base);
    word_count = ((end + 7) >> 3) - (base >> 3);
    first_start = begin - base;
    last_start = end - base - m;
  }

  __device__ __forceinline__ uint64_t word(int32_t i) const { return i < word_count ? __ldg(words + i) : 0; }
};

// The starts of the literal in one window of a tile, [lo, hi] relative to the tile, into bit s - window of the bitmap.
// Lane Refill for the filter's survivors (DogQC): a word with candidates goes on the warp's queue instead of being
// checked by its lane at once, which would keep the other 31 lanes waiting on most steps, and 32 queued words are
// checked by the 32 lanes together. All functions are called by the warp's lanes converged.
struct WindowScan {
  const ScanTile& tile;
  const ScanLiteral& lit;
  int32_t window;
  int32_t lo;
  int32_t hi;
  uint32_t* bitmap;
  int32_t* queue_words;
  uint64_t* queue_masks;
  int32_t queued;  // the same in every lane

  // Scans the window; lane utilisation: words scanned over word slots.
  __device__ __forceinline__ void run(LaneUtilisation& util) {
    if (hi < lo) return;
    const int32_t first_word = lo >> 3;
    const int32_t last_word = hi >> 3;
    int32_t steps = 0;
    for (int32_t step = first_word; step <= last_word; step += SCAN_STEP_WORDS) {
      uint64_t cur[SCAN_WORDS_PER_LANE];
      uint64_t next[SCAN_WORDS_PER_LANE];
#pragma unroll
      for (int v = 0; v < SCAN_WORDS_PER_LANE; v++) {  // all loads first: four words per lane in flight
        const int32_t i = step + 32 * v + lane_id();
        if (step + SCAN_STEP_WORDS < tile.word_count) {  // all steps but a tile's last: no bounds to check
          cur[v] = __ldg(tile.words + i);
          next[v] = __ldg(tile.words + i + 1);
        } else {
          cur[v] = tile.word(i);
          next[v] = tile.word(i + 1);
        }
      }
      uint64_t found[SCAN_WORDS_PER_LANE];
      bool any = false;
#pragma unroll
      for (int v = 0; v < SCAN_WORDS_PER_LANE; v++) {
        found[v] = lit.candidates(cur[v], next[v]);
        any |= found[v] != 0;
      }
      if (__any_sync(FULL_WARP, any)) {
#pragma unroll
        for (int v = 0; v < SCAN_WORDS_PER_LANE; v++) enqueue(step + 32 * v + lane_id(), found[v]);
        __syncwarp();
      }
      while (queued >= 32) check(32);
      steps++;
    }
    if (queued > 0) check(queued);
    util.account(last_word - first_word + 1, steps * SCAN_WORDS_PER_LANE);
  }

 private:
  __device__ __forceinline__ void enqueue(int32_t word, uint64_t candidates) {
    const uint32_t holders = __ballot_sync(FULL_WARP, candidates != 0);
    if (holders == 0) return;
    if (candidates != 0) {
      const int32_t at = queued + __popc(holders & lanemask_lt());
      queue_words[at] = word;
      queue_masks[at] = candidates;
    }
    queued += __popc(holders);
  }

  // The top `count` (at most 32) queued words, a lane each: their candidates checked in full and in bounds.
  __device__ __forceinline__ void check(int32_t count) {
    const int32_t at = queued - count + lane_id();
    if (lane_id() < count) {
      const int32_t i = queue_words[at];
      const uint64_t cur = tile.word(i);
      const uint64_t next = tile.word(i + 1);
      for (uint64_t c = queue_masks[at]; c != 0; c &= c - 1) {
        const int32_t s = 8 * i + first_marked_byte(c);
        if (s >= lo && s <= hi &&
            lit.starts_at(cur, next, s & 7, reinterpret_cast<const uint8_t*>(tile.words + i + 2))) {
          const int32_t bit = s - window;
          atomicOr(bitmap + (bit >> 5), 1u << (bit & 31));
        }
      }
    }
    queued -= count;
    __syncwarp();  // the slots may be queued again
  }
};

// Starts copying `count` row offsets from `from` to the warp's shared `to` (16-byte aligned): 16 bytes a copy when
// `from` is aligned as well (a tile's first row is a multiple of 32: so it is whenever the offsets buffer is), the
// rest 4 bytes a copy. The warp's lanes call it together; copy_async_wait_all, then __syncwarp, before reading.
__device__ __forceinline__ void stage_row_starts(const int32_t* from, int32_t count, int32_t* to) {
  int32_t done = 0;
  if ((reinterpret_cast<uintptr_t>(from) & 15) == 0) {
    done = count & ~3;
    for (int32_t k = 4 * lane_id(); k < done; k += 128) copy_async_16(to + k, from + k);
  }
  for (int32_t k = done + lane_id(); k < count; k += 32) copy_async_4(to + k, from + k);
  copy_async_commit();
}

// Zeroes `words` words of the warp's bitmap (16-byte aligned), rounded up to a multiple of 4.
__device__ __forceinline__ void clear_bitmap(uint32_t* bitmap, int32_t words) {
  for (int32_t i = 4 * lane_id(); i < words; i += 128) *reinterpret_cast<uint4*>(bitmap + i) = make_uint4(0, 0, 0, 0);
}

// Whether bitmap bits [lo, hi) (lo < hi, relative to the window) hold a set bit: the 32 from lo at once, which covers a
// row of up to 32 + m - 1 bytes, then word by word.
__device__ __forceinline__ bool any_bit(const uint32_t* bitmap, int32_t lo, int32_t hi) {
  const int32_t w = lo >> 5;
  const uint32_t from_lo = __funnelshift_r(bitmap[w], bitmap[w + 1], lo);  // the shift is taken mod 32
  const int32_t n = hi - lo;
  if (from_lo & (0xffffffffu >> (32 - min(n, 32)))) return true;
  for (int32_t x = lo + 32; x < hi; x += 32) {
    const uint32_t bits = __funnelshift_r(bitmap[x >> 5], bitmap[(x >> 5) + 1], x);
    if (bits & (0xffffffffu >> (32 - min(hi - x, 32)))) return true;
  }
  return false;
}

}  // namespace sparkwarp
