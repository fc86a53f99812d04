// String predicates (Sitaridi ch. 5 and 6; DogQC's Lane Refill): the pivoted layouts built on the device, and
// compiled matchers (literal segments with KMP, byte DFAs) run over plain, pivoted or self-pivoted strings into a
// BOOLEAN column. Host side: io.sparkwarp.kernels.cuda.CudaStringPrimitives; reference:
// io.sparkwarp.kernels.host.HostStringPrimitives; layouts: io.sparkwarp.kernels.strings.PivotedStrings.
//
// Match kernels, one per layout x matcher x (static | refill):
//  - PLAIN and PIVOTED: a lane per row, one 8-byte piece per loop iteration (KMP_hybrid's outer loop: lanes meet again
//    at piece boundaries). static: a warp takes a 32-row tile (for PIVOTED a pivot group, whose lanes read 256
//    contiguous bytes while they stay in step) and loops until its last lane is decided. refill: warps take chunks
//    of rows from a grid-wide queue and a lane whose row is decided takes the next one at once (row_queue.cuh).
//  - SELF_PIVOTED, segment matchers only: a warp per row, lane l scanning segment l (warp_segments.cuh). static:
//    grid-stride rows; refill: rows from the queue, so warps that meet long strings take fewer of them.
// The matcher program is copied into dynamic shared memory once per block (its tables are read per byte). Results:
// matching rows set their bit with atomicOr in words the host zeroed, since under refill rows finish out of order;
// that is one fire-and-forget atomic per matching row against at least a piece read per row, and the same writer
// serves every variant. Validity is the input's, copied by the host; null rows stay 0.
#include <type_traits>

#include "sparkwarp/async_copy.cuh"
#include "sparkwarp/dfa.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/kmp.cuh"
#include "sparkwarp/lane_utilisation.cuh"
#include "sparkwarp/literal_scan.cuh"
#include "sparkwarp/row_queue.cuh"
#include "sparkwarp/string_pieces.cuh"
#include "sparkwarp/warp.cuh"
#include "sparkwarp/warp_segments.cuh"

using namespace sparkwarp;

// The matcher program of a match launch, copied from global memory by each block.
extern __shared__ uint4 sw_strings_program[];

namespace {

constexpr int STRINGS_BLOCK = 256;  // io.sparkwarp.kernels.cuda.CudaStringPrimitives.BLOCK

// The string column a match reads: the Arrow column and, for the pivoted layouts, the layout.
struct StringsIn {
  const uint32_t* validity;
  const int32_t* offsets;
  const uint8_t* data;
  const int64_t* starts;   // PivotedStrings.starts(), or nullptr
  const uint8_t* pivoted;  // PivotedStrings.data(), or nullptr
  int64_t rows;

  __device__ __forceinline__ bool valid(int64_t row) const { return (validity[row >> 5] >> (row & 31)) & 1u; }
};

// Layout policies: how a lane's row is read.
struct PlainLayout {
  using Pieces = PlainPieces;
  __device__ static __forceinline__ Pieces pieces(const StringsIn& in, int64_t, int32_t begin, int32_t end) {
    return Pieces(in.data, begin, end);
  }
};

struct PivotedLayout {
  using Pieces = PivotedPieces;
  __device__ static __forceinline__ Pieces pieces(const StringsIn& in, int64_t row, int32_t, int32_t) {
    return Pieces(in.pivoted, in.starts, row);
  }
};

struct SelfPivotedLayout {};

// Matcher policies: the program in shared memory, the lane that runs it, and the resident blocks per SM the kernels
// are compiled for: as many as fit without spilling (ptxas: segment kernels spill from 5 blocks = 48 registers on,
// DFA kernels stay spill-free at 6 = 40), since more warps hide more of the dependent loads' latency.
struct Segments {
  using Program = SegmentProgram;
  using Lane = SegmentLane;
  static constexpr int MIN_BLOCKS = 4;
};

struct Dfa {
  using Program = DfaProgram;
  using Lane = DfaLane;
  static constexpr int MIN_BLOCKS = 6;
};

// The contains scan: 64 registers; more blocks spill, and its shared memory allows no more than four anyway.
constexpr int SCAN_MIN_BLOCKS = 4;

// The block's copy of the program (`bytes` a multiple of 16, the global copy 16-byte aligned).
__device__ __forceinline__ const uint8_t* load_program(const uint8_t* program, int32_t bytes) {
  const uint4* src = reinterpret_cast<const uint4*>(program);
  for (int i = threadIdx.x; i < bytes / 16; i += blockDim.x) sw_strings_program[i] = src[i];
  __syncthreads();
  return reinterpret_cast<const uint8_t*>(sw_strings_program);
}

__device__ __forceinline__ void set_match(uint32_t* bits, int64_t row) {
  atomicOr(bits + (row >> 5), 1u << (row & 31));
}

// A lane's row: where its bytes are and the matcher's state over them. open and step write the row's result when
// they decide it.
template <typename Layout, typename Matcher>
struct LaneTask {
  typename Layout::Pieces pieces;
  typename Matcher::Lane lane;
  int64_t row;

  // Takes `r`; false when it is decided without reading (null, or a length the matcher rules out).
  __device__ __forceinline__ bool open(const StringsIn& in, const typename Matcher::Program& p, int64_t r,
                                       uint32_t* bits) {
    row = r;
    if (!in.valid(r)) return false;
    const int32_t begin = in.offsets[r];
    const int32_t end = in.offsets[r + 1];
    pieces = Layout::pieces(in, r, begin, end);
    if (lane.open(p, end - begin)) return true;
    if (lane.matched()) set_match(bits, row);
    return false;
  }

  // Reads and examines the next piece; true when that decides the row.
  __device__ __forceinline__ bool step(const typename Matcher::Program& p, uint32_t* bits) {
    if (!lane.consume(p, pieces.piece(lane.next_piece()))) return false;
    if (lane.matched()) set_match(bits, row);
    return true;
  }
};

// chunk: rows a warp takes from the refill queue at a time. counters: [0] active lanes and [1] warp iterations
// (LaneUtilisation), [2] the refill queue's cursor; all zeroed by the host.
template <typename Layout, typename Matcher, bool Refill>
__device__ __forceinline__ void match(const StringsIn& in, const uint8_t* program, int32_t program_bytes,
                                      int32_t chunk, uint32_t* bits, unsigned long long* counters) {
  LaneUtilisation util;
  if constexpr (std::is_same_v<Layout, SelfPivotedLayout>) {
    const SegmentProgram p(load_program(program, program_bytes));
    auto run = [&](int64_t row) {
      if (!in.valid(row)) return;
      const SelfPivotedPieces pieces(in.pivoted, in.starts, row);
      const bool matched = warp_match_segments(p, pieces, in.offsets[row + 1] - in.offsets[row], util);
      if (matched && lane_id() == 0) set_match(bits, row);
    };
    if constexpr (Refill) {
      RowQueue queue(counters + 2, in.rows, chunk);
      int64_t row;
      while (queue.next_row(row)) run(row);
    } else {
      for_each_warp_tile(in.rows, run);
    }
  } else {
    const typename Matcher::Program p(load_program(program, program_bytes));
    LaneTask<Layout, Matcher> task;
    if constexpr (Refill) {
      RowQueue queue(counters + 2, in.rows, chunk);
      auto open = [&](int64_t row) { return task.open(in, p, row, bits); };
      bool busy = false;
      queue.refill(busy, open);
      while (__any_sync(FULL_WARP, busy)) {
        util.step(busy);
        if (busy) busy = !task.step(p, bits);
        queue.refill(busy, open);
      }
    } else {
      for_each_warp_tile((in.rows + 31) >> 5, [&](int64_t tile) {
        const int64_t row = (tile << 5) + lane_id();
        bool busy = row < in.rows && task.open(in, p, row, bits);
        while (__any_sync(FULL_WARP, busy)) {
          util.step(busy);
          if (busy) busy = !task.step(p, bits);
        }
      });
    }
  }
  util.publish(counters);
}

}  // namespace

// ---- Pivoting ----

// counts[g] = 8-byte pieces of the longest string of rows [32g, 32g + 32): a PIVOTED group's pieces per row.
extern "C" __global__ void __launch_bounds__(STRINGS_BLOCK)
    sw_strings_group_pieces(const int32_t* offsets, int64_t rows, int32_t* counts) {
  for_each_warp_tile((rows + 31) >> 5, [&](int64_t g) {
    const int64_t row = (g << 5) + lane_id();
    const uint32_t length = row < rows ? static_cast<uint32_t>(offsets[row + 1] - offsets[row]) : 0u;
    const uint32_t longest = __reduce_max_sync(FULL_WARP, length);
    if (lane_id() == 0) counts[g] = static_cast<int32_t>((longest + 7) / 8);
  });
}

// counts[r] = ceil(n / 256) for row r of n bytes: a SELF_PIVOTED row's pieces per segment.
extern "C" __global__ void __launch_bounds__(STRINGS_BLOCK)
    sw_strings_segment_pieces(const int32_t* offsets, int64_t rows, int32_t* counts) {
  for_each_index(rows, [&](int64_t r) {
    counts[r] = (offsets[r + 1] - offsets[r] + PIVOT_ROW_BYTES - 1) / PIVOT_ROW_BYTES;
  });
}

// starts[i] = 256 pieces[i] for i in [0, count]: scanned piece counts to byte offsets (each piece index stands for
// the 32 lanes' pieces), 64 bits wide because padding can take a layout past 2^31 bytes.
extern "C" __global__ void __launch_bounds__(STRINGS_BLOCK)
    sw_strings_piece_starts(const int32_t* pieces, int64_t count, int64_t* starts) {
  for_each_index(count + 1, [&](int64_t i) { starts[i] = static_cast<int64_t>(pieces[i]) * PIVOT_ROW_BYTES; });
}

// The PIVOTED layout: a warp per 32-row group, lane l writing row 32g + l's piece k as word k * 32 + l of the group
// (256 contiguous bytes per k), zero past each string's end.
extern "C" __global__ void __launch_bounds__(STRINGS_BLOCK)
    sw_strings_pivot(const int32_t* offsets, const uint8_t* data, int64_t rows, const int64_t* starts, uint8_t* out) {
  for_each_warp_tile((rows + 31) >> 5, [&](int64_t g) {
    const int64_t row = (g << 5) + lane_id();
    const int32_t begin = row < rows ? offsets[row] : 0;
    const int32_t n = row < rows ? offsets[row + 1] - begin : 0;
    PlainPieces src(data, begin, begin + n);
    const int64_t pieces = (starts[g + 1] - starts[g]) / PIVOT_ROW_BYTES;
    uint64_t* dst = reinterpret_cast<uint64_t*>(out + starts[g]) + lane_id();
    for (int32_t k = 0; k < pieces; k++) {
      const int32_t left = n - 8 * k;
      dst[static_cast<int64_t>(k) * 32] = left > 0 ? src.piece(k) & piece_byte_mask(0, left < 8 ? left : 8) : 0;
    }
  });
}

// The SELF_PIVOTED layout: a warp per row, lane l writing piece q of segment l as word q * 32 + l of the row (256
// contiguous bytes per q), zero past the string's end.
extern "C" __global__ void __launch_bounds__(STRINGS_BLOCK)
    sw_strings_self_pivot(const int32_t* offsets, const uint8_t* data, int64_t rows, const int64_t* starts,
                          uint8_t* out) {
  for_each_warp_tile(rows, [&](int64_t r) {
    const int32_t begin = offsets[r];
    const int32_t n = offsets[r + 1] - begin;
    PlainPieces src(data, begin, begin + n);
    const int32_t pieces = static_cast<int32_t>((starts[r + 1] - starts[r]) / PIVOT_ROW_BYTES);
    const int64_t segment = static_cast<int64_t>(lane_id()) * pieces * PIECE_BYTES;
    uint64_t* dst = reinterpret_cast<uint64_t*>(out + starts[r]) + lane_id();
    for (int32_t q = 0; q < pieces; q++) {
      const int64_t at = segment + static_cast<int64_t>(q) * PIECE_BYTES;
      const int64_t left = n - at;
      const int bytes = left < 8 ? static_cast<int>(left) : 8;
      dst[static_cast<int64_t>(q) * 32] =
          left > 0 ? src.piece(static_cast<int32_t>(at >> 3)) & piece_byte_mask(0, bytes) : 0;
    }
  });
}

// ---- Matching ----

// Every match kernel: the column (starts and pivoted null for PLAIN), the matcher program (global copy, bytes a
// multiple of 16, launched with that much dynamic shared memory), the refill chunk, the output bits (zeroed) and the
// counters (zeroed).
#define SW_MATCH_ENTRY(name, Layout, Matcher, refill)                                                              \
  extern "C" __global__ void __launch_bounds__(STRINGS_BLOCK, Matcher::MIN_BLOCKS)                                    \
      name(const uint32_t* validity, const int32_t* offsets, const uint8_t* data, const int64_t* starts,            \
           const uint8_t* pivoted, int64_t rows, const uint8_t* program, int32_t program_bytes, int32_t chunk,      \
           uint32_t* bits, unsigned long long* counters) {                                                          \
    match<Layout, Matcher, refill>(StringsIn{validity, offsets, data, starts, pivoted, rows}, program, program_bytes, \
                                   chunk, bits, counters);                                                          \
  }

SW_MATCH_ENTRY(sw_strings_match_plain_segments, PlainLayout, Segments, false)
SW_MATCH_ENTRY(sw_strings_match_plain_segments_refill, PlainLayout, Segments, true)
SW_MATCH_ENTRY(sw_strings_match_plain_dfa, PlainLayout, Dfa, false)
SW_MATCH_ENTRY(sw_strings_match_plain_dfa_refill, PlainLayout, Dfa, true)
SW_MATCH_ENTRY(sw_strings_match_pivoted_segments, PivotedLayout, Segments, false)
SW_MATCH_ENTRY(sw_strings_match_pivoted_segments_refill, PivotedLayout, Segments, true)
SW_MATCH_ENTRY(sw_strings_match_pivoted_dfa, PivotedLayout, Dfa, false)
SW_MATCH_ENTRY(sw_strings_match_pivoted_dfa_refill, PivotedLayout, Dfa, true)
SW_MATCH_ENTRY(sw_strings_match_self_pivoted_segments, SelfPivotedLayout, Segments, false)
SW_MATCH_ENTRY(sw_strings_match_self_pivoted_segments_refill, SelfPivotedLayout, Segments, true)

#undef SW_MATCH_ENTRY

// Rows of a plain column that contain a literal (literal_scan.cuh): bits[w] = the 32 answers of rows [32w, 32w + 32)
// AND the validity, whole words written (no zeroing needed). literal: its bytes (global memory); filter: its
// ScanFilter. A warp per tile of tile_rows rows (a multiple of 32, at most SCAN_MAX_TILE_ROWS). Dynamic shared
// memory: scan_scratch::WORDS words per warp. counters as the match kernels': [0] words scanned (active lanes), [1]
// word slots / 32 (warp iterations). The next tile's bounds are loaded while a tile is scanned, and its row starts are
// copied to shared memory asynchronously while its bytes are.
extern "C" __global__ void __launch_bounds__(STRINGS_BLOCK, SCAN_MIN_BLOCKS)
    sw_strings_contains_scan(const uint32_t* validity, const int32_t* offsets, const uint8_t* data, int64_t rows,
                             const uint8_t* literal, const ScanFilter filter, int32_t tile_rows, uint32_t* bits,
                             unsigned long long* counters) {
  using namespace scan_scratch;
  const ScanLiteral lit{filter, literal};
  uint32_t* scratch = reinterpret_cast<uint32_t*>(sw_strings_program) + (threadIdx.x >> 5) * WORDS;
  uint32_t* bitmap = scratch + BITMAP;
  int32_t* row_starts = reinterpret_cast<int32_t*>(scratch + ROW_STARTS);  // column offsets
  LaneUtilisation util;
  const int64_t tiles = (rows + tile_rows - 1) / tile_rows;
  auto bounds = [&](int64_t t, int32_t& begin, int32_t& end) {
    if (t >= tiles) return;
    begin = offsets[t * tile_rows];
    end = offsets[t * tile_rows + tile_rows < rows ? t * tile_rows + tile_rows : rows];
  };
  int32_t begin = 0, end = 0;
  bounds(global_warp_index(), begin, end);
  for (int64_t t = global_warp_index(); t < tiles; t += grid_warps()) {
    const int64_t r0 = t * tile_rows;
    const int32_t n = static_cast<int32_t>(r0 + tile_rows < rows ? tile_rows : rows - r0);
    const ScanTile tile(data, begin, end, filter.m);
    bounds(t + grid_warps(), begin, end);
    stage_row_starts(offsets + r0, n + 1, row_starts);
    uint32_t found = 0;  // bit g: row r0 + 32g + lane holds the literal
    for (int32_t window = 0; window <= tile.last_start; window += SCAN_WINDOW_BYTES) {
      const int32_t window_bytes = min(tile.last_start - window + 1, SCAN_WINDOW_BYTES);
      clear_bitmap(bitmap, ((window_bytes + 31) >> 5) + 2);
      __syncwarp();
      WindowScan scan{tile, lit, window, max(tile.first_start, window), window + window_bytes - 1, bitmap,
                      reinterpret_cast<int32_t*>(scratch + QUEUE_WORDS),
                      reinterpret_cast<uint64_t*>(scratch + QUEUE_MASKS), 0};
      scan.run(util);
      copy_async_wait_all();
      __syncwarp();
      const int32_t shift = tile.base + window;  // column offset -> bit
      for (int32_t k = lane_id(); k < n; k += 32) {
        const int32_t lo = max(row_starts[k] - shift, 0);
        const int32_t hi = min(row_starts[k + 1] - filter.m + 1 - shift, window_bytes);  // starts before hi
        if (lo < hi && any_bit(bitmap, lo, hi)) found |= 1u << (k >> 5);
      }
      __syncwarp();
    }
    for (int32_t g = 0; 32 * g < n; g++) {
      const uint32_t answers = __ballot_sync(FULL_WARP, (found >> g) & 1u);
      const int64_t w = (r0 >> 5) + g;
      if (lane_id() == 0) bits[w] = answers & validity[w];
    }
    copy_async_wait_all();  // a tile without a window still copied its row starts
    __syncwarp();           // the next tile's row starts overwrite these
  }
  util.publish(counters);
}
