// Parquet on the device: batched decompression of pages (Snappy, LZ4_RAW, Hadoop-framed LZ4, ZSTD or a plain copy) and decoding of one column's pages
// into the Arrow layout. Host side: io.sparkwarp.kernels.cuda.CudaParquetPrimitives; reference:
// io.sparkwarp.kernels.host.HostParquetPrimitives. Table layouts: io.sparkwarp.kernels.parquet.CompressedBlocks and
// PageTable (int64 words). Every kernel gives one warp to one block, page or row (the value decoders a block to a
// page) and bounds-checks what it reads; a page whose status is not 0 is skipped by the later kernels, and the host
// raises the error.
#include "sparkwarp/delta_binary_packed.cuh"
#include "sparkwarp/delta_byte_array.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/lz4.cuh"
#include "sparkwarp/parquet_status.cuh"
#include "sparkwarp/plain_byte_array.cuh"
#include "sparkwarp/rle_hybrid.cuh"
#include "sparkwarp/snappy.cuh"
#include "sparkwarp/snappy_fragments.cuh"
#include "sparkwarp/varint.cuh"
#include "sparkwarp/warp.cuh"
#include "sparkwarp/zstd.cuh"

namespace {

using namespace sparkwarp;

// CompressedBlocks: 5 words per block.
struct BlockDesc {
  int64_t source, source_bytes, target, target_bytes, codec;  // BlockCodec
};

// CompressedBlocks.Codec ordinals.
enum BlockCodec : int64_t { COPY = 0, SNAPPY = 1, LZ4_RAW = 2, LZ4_HADOOP = 3, ZSTD = 4 };

// PageTable: 8 words per page.
struct PageDesc {
  int64_t offset;      // first byte of the page in the pages buffer (page v2: its definition levels)
  int64_t bytes;       // bytes of the page from offset
  int64_t def_bytes;   // page v2: bytes of definition levels; -1 for page v1 (a 4-byte length prefix in the page)
  int64_t row_start;   // first output row (dictionary pages: none)
  int64_t num_values;  // rows of a data page; entries of a dictionary page
  int64_t kind;        // PageTable.Kind ordinal
  int64_t link;        // data page: its dictionary page's index; dictionary page: its first string slot after rows
  int64_t max_def;     // 0 or 1
};

enum PageKind : int64_t {
  PLAIN = 0, DICTIONARY_ENCODED = 1, RLE_BOOLEAN = 2, DICTIONARY_PAGE = 3, DELTA_BINARY_PACKED = 4,
  DELTA_LENGTH_BYTE_ARRAY = 5, DELTA_BYTE_ARRAY = 6, BYTE_STREAM_SPLIT = 7
};
// ParquetPrimitives' physical types (PhysicalType ordinals).
enum Physical : int32_t {
  P_BOOLEAN = 0, P_INT32 = 1, P_INT64 = 2, P_FLOAT = 3, P_DOUBLE = 4, P_FIXED = 5, P_BYTES = 6, P_INT96 = 7,
  P_UINT32 = 8,        // INT32 holding an unsigned value: zero-extended
  P_INT64_MILLIS = 9,  // INT64 milliseconds: times 1000, overflow an error
  P_UINT64 = 10        // INT64 holding an unsigned value: zero-extended into 16 bytes
};

__device__ __forceinline__ int physical_width(int32_t physical, int32_t type_length) {
  switch (physical) {
    case P_INT32:
    case P_UINT32:
    case P_FLOAT: return 4;
    case P_INT64:
    case P_INT64_MILLIS:
    case P_UINT64:
    case P_DOUBLE: return 8;
    case P_FIXED: return type_length;
    case P_INT96: return 12;
    default: return 0;
  }
}

// Whether a page of `kind` may hold values of `physical` (`width` bytes each): the encodings that are not
// for every type. The planner only hands over such pages; this keeps a wrong table from reading out of bounds.
__device__ __forceinline__ bool encoding_fits(int64_t kind, int32_t physical, int width) {
  const bool integer = physical == P_INT32 || physical == P_UINT32 || physical == P_INT64 || physical == P_INT64_MILLIS ||
                       physical == P_UINT64;
  const bool small_fixed = physical == P_FIXED && width >= 1 && width <= 8;  // rebuilt or gathered in 8 bytes
  switch (kind) {
    case DELTA_BINARY_PACKED: return integer;
    case DELTA_LENGTH_BYTE_ARRAY: return physical == P_BYTES;
    case DELTA_BYTE_ARRAY: return physical == P_BYTES || small_fixed;
    case BYTE_STREAM_SPLIT: return integer || physical == P_FLOAT || physical == P_DOUBLE || small_fixed;
    default: return true;
  }
}

// Sum over the warp of a 32-bit value.
__device__ __forceinline__ int64_t warp_sum(int64_t v) {
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(FULL_WARP, v, d);
  return v;
}

// A value of `width` bytes at p as a sign-extended int64: little-endian, or big-endian for fixed-length decimals.
__device__ __forceinline__ int64_t load_value(const uint8_t* p, int width, bool big_endian) {
  uint64_t v = 0;
  if (big_endian) {
    for (int k = 0; k < width; k++) v = (v << 8) | p[k];
  } else {
    v = load_le(p, width);
  }
  const int shift = 64 - 8 * width;
  return shift == 0 ? static_cast<int64_t>(v) : static_cast<int64_t>(v << shift) >> shift;
}

// An INT96 timestamp (8 bytes of nanoseconds in the day, a 4-byte Julian day) as microseconds since the epoch, as
// Spark's DateTimeUtils.fromJulianDay computes it: truncating division, and wrapping (unsigned) where Java's long
// arithmetic wraps.
__device__ __forceinline__ int64_t int96_micros(const uint8_t* p) {
  const int64_t nanos = static_cast<int64_t>(load_le(p, 8));
  const int64_t day = static_cast<int32_t>(load_le(p + 8, 4));
  const uint64_t micros = static_cast<uint64_t>(day - 2440588) * 86400000000ULL + static_cast<uint64_t>(nanos / 1000);
  return static_cast<int64_t>(micros);
}

// Fixed-length DELTA_BYTE_ARRAY values, each `width` (<= 8) bytes, rebuilt from their prefixes and suffixes into
// out[k] (its first width bytes, in stored order). Lane b keeps byte b of the value before, so each value is a
// step of the warp; the values are only a few bytes, so this serial walk costs little.
__device__ int32_t rebuild_fixed(const uint8_t* pages, int64_t count, int width, const int32_t* prefixes,
                                 const int32_t* lengths, const int32_t* starts, int64_t* out) {
  const int lane = lane_id();
  bool wrong = false;
  for (int64_t k = lane; k < count; k += 32) wrong |= lengths[k] != width;
  if (__any_sync(FULL_WARP, wrong)) return PQ_SIZE_MISMATCH;
  __syncwarp();  // every lane reads every value's entries below
  uint8_t byte = 0;
  for (int64_t k = 0; k < count; k++) {
    if (lane < width) {
      if (lane >= prefixes[k]) byte = pages[starts[k] + lane - prefixes[k]];
      reinterpret_cast<uint8_t*>(out + k)[lane] = byte;
    }
  }
  return PQ_OK;
}

}  // namespace

// The calling warp's warp_bytes of the block's dynamic shared memory.
__device__ __forceinline__ uint8_t* warp_shared(int32_t warp_bytes) {
  extern __shared__ uint8_t sw_pq_rings[];
  return sw_pq_rings + static_cast<int64_t>(threadIdx.x / 32) * warp_bytes;
}

// One warp per block of the table's blocks that `decode(b, d, src, dst, ring)` takes (returning its status), the
// others' statuses left to another launch. Dynamic shared memory: warp_bytes per warp of the block, starting with
// ring_bytes (the ring of recent output lz_round_warp reads back-references from). One kernel per codec family: each
// decoder alone keeps its registers (all in one kernel took twice Snappy's, and half its occupancy).
template <typename Decode>
__device__ __forceinline__ void decompress_blocks(const uint8_t* input, uint8_t* output, const BlockDesc* blocks,
                                                  int32_t count, int32_t warp_bytes, int32_t* status, Decode decode) {
  uint8_t* ring = warp_shared(warp_bytes);
  for_each_warp_tile(count, [&](int64_t b) {
    const BlockDesc d = blocks[b];
    int32_t err = PQ_OK;
    if (!decode(b, d, input + d.source, output + d.target, ring, &err)) return;
    if (lane_id() == 0) status[b] = err;
  });
}

// Whether block b was split into fragments (sw_pq_snappy_split): first_slot (null when nothing was) holds each block's
// first fragment slot, count + 1 entries.
__device__ __forceinline__ bool split_block(const int64_t* first_slot, int64_t b) {
  return first_slot != nullptr && first_slot[b + 1] > first_slot[b];
}

// Whether block b's fragments decode it (its status after the split, until one fails). One lane reads for the warp:
// another lane or warp may write the word meanwhile, and the lanes must agree.
__device__ __forceinline__ bool by_fragments(const int32_t* status, int64_t b) {
  return __shfl_sync(FULL_WARP, lane_id() == 0 ? status[b] : 0, 0) == SNAPPY_BY_FRAGMENTS;
}

// Snappy blocks and uncompressed ones (copied), those the fragments decoded only given their final status.
extern "C" __global__ void sw_pq_decompress(const uint8_t* input, uint8_t* output, const BlockDesc* blocks,
                                            int32_t count, int32_t ring_bytes, const int64_t* first_slot,
                                            int32_t* status) {
  decompress_blocks(input, output, blocks, count, ring_bytes, status,
                    [&](int64_t b, const BlockDesc& d, const uint8_t* src, uint8_t* dst, uint8_t* ring, int32_t* err) {
                      if (d.codec == SNAPPY && split_block(first_slot, b) && by_fragments(status, b)) {
                        *err = PQ_OK;
                      } else if (d.codec == SNAPPY) {
                        *err = snappy_decompress_warp(src, d.source_bytes, dst, d.target_bytes, ring, ring_bytes);
                      } else if (d.codec != COPY) {
                        return false;
                      } else if (d.source_bytes != d.target_bytes) {
                        *err = PQ_SIZE_MISMATCH;
                      } else {
                        for (int64_t i = lane_id(); i < d.target_bytes; i += 32) dst[i] = src[i];
                      }
                      return true;
                    });
}

// The split of Snappy blocks of several fragments (snappy_fragments.cuh), a thread block a Snappy block: each one's
// fragment slots from first_slot[b] on get their stream offsets, and its status SNAPPY_BY_FRAGMENTS or SNAPPY_BY_WARP.
extern "C" __global__ void __launch_bounds__(BLOCK_CHAIN_THREADS)
    sw_pq_snappy_split(const uint8_t* input, const BlockDesc* blocks, int32_t count, const int64_t* first_slot,
                       int64_t* slot_source, int32_t* status) {
  static __shared__ SnappySplitScratch scratch;
  for_each_block_tile(count, [&](int64_t b) {
    if (!split_block(first_slot, b)) return;
    const BlockDesc d = blocks[b];
    const bool split = snappy_split_fragments(input + d.source, d.source_bytes, d.target_bytes,
                                              slot_source + first_slot[b], first_slot[b + 1] - first_slot[b], scratch);
    if (threadIdx.x == 0) status[b] = split ? SNAPPY_BY_FRAGMENTS : SNAPPY_BY_WARP;
  });
}

// A warp per fragment slot of the split blocks (slot_count = first_slot[count]); a fragment that fails sends its
// block to one warp (sw_pq_decompress, launched next). Dynamic shared memory: ring_bytes per warp.
extern "C" __global__ void sw_pq_snappy_fragments(const uint8_t* input, uint8_t* output, const BlockDesc* blocks,
                                                  int32_t count, const int64_t* first_slot,
                                                  const int64_t* slot_source, int32_t ring_bytes, int32_t* status) {
  uint8_t* ring = warp_shared(ring_bytes);
  for_each_warp_tile(first_slot[count], [&](int64_t s) {
    int32_t lo = 0, hi = count - 1;  // the block of slot s: the last b with first_slot[b] <= s
    while (lo < hi) {
      const int32_t mid = (lo + hi + 1) / 2;
      if (first_slot[mid] <= s) lo = mid; else hi = mid - 1;
    }
    if (!by_fragments(status, lo)) return;  // the split failed, or another fragment did already
    const BlockDesc d = blocks[lo];
    const int64_t first = first_slot[lo];
    const int32_t err = snappy_decode_fragment(input + d.source, d.source_bytes, output + d.target, d.target_bytes,
                                               slot_source + first, first_slot[lo + 1] - first, s - first, ring,
                                               ring_bytes);
    if (err != PQ_OK && lane_id() == 0) status[lo] = SNAPPY_BY_WARP;
  });
}

// LZ4_RAW blocks and Hadoop-framed LZ4 ones.
extern "C" __global__ void sw_pq_decompress_lz4(const uint8_t* input, uint8_t* output, const BlockDesc* blocks,
                                                int32_t count, int32_t ring_bytes, int32_t* status) {
  decompress_blocks(input, output, blocks, count, ring_bytes, status,
                    [&](int64_t b, const BlockDesc& d, const uint8_t* src, uint8_t* dst, uint8_t* ring, int32_t* err) {
                      if (d.codec == LZ4_RAW) {
                        *err = lz4_raw_decompress_warp(src, d.source_bytes, dst, d.target_bytes, ring, ring_bytes);
                      } else if (d.codec == LZ4_HADOOP) {
                        *err = lz4_hadoop_decompress_warp(src, d.source_bytes, dst, d.target_bytes, ring, ring_bytes);
                      } else {
                        return false;
                      }
                      return true;
                    });
}

// ZSTD blocks. Dynamic shared memory: ring_bytes of ring, then ZSTD_WORKSPACE_BYTES of tables, per warp.
extern "C" __global__ void sw_pq_decompress_zstd(const uint8_t* input, uint8_t* output, const BlockDesc* blocks,
                                                 int32_t count, int32_t ring_bytes, int32_t* status) {
  decompress_blocks(input, output, blocks, count, ring_bytes + ZSTD_WORKSPACE_BYTES, status,
                    [&](int64_t b, const BlockDesc& d, const uint8_t* src, uint8_t* dst, uint8_t* ring, int32_t* err) {
                      if (d.codec != ZSTD) return false;
                      ZstdWorkspace* w = reinterpret_cast<ZstdWorkspace*>(ring + ring_bytes);
                      *err = zstd_decompress_warp(src, d.source_bytes, dst, d.target_bytes, ring, ring_bytes, w);
                      return true;
                    });
}

// One warp per page: definition levels into defined[row] (0/1), the page's values located (value_start), dictionary
// indices and RLE booleans expanded into indices[row_start + k] for the k-th non-null value, DELTA_BINARY_PACKED
// values into deltas[row_start + k], and PLAIN byte arrays (and dictionary pages of byte arrays) walked into string
// slots. DELTA_LENGTH_BYTE_ARRAY values take string slots too; DELTA_BYTE_ARRAY values their suffixes' (slot_start),
// their whole length (slot_len) and their prefix length (indices), and fixed-length ones are rebuilt into deltas.
// Checks every size against the page.
extern "C" __global__ void sw_pq_prepare(const uint8_t* pages, const PageDesc* table, int32_t page_count,
                                         int32_t physical, int32_t type_length, uint8_t* defined, int32_t* indices,
                                         int64_t* deltas, int64_t* value_start, int32_t* slot_start,
                                         int32_t* slot_len, int64_t rows, int32_t* status) {
  for_each_warp_tile(page_count, [&](int64_t pg) {
    const PageDesc d = table[pg];
    const int lane = lane_id();
    const int64_t end = d.offset + d.bytes;
    const int width = physical_width(physical, type_length);
    int32_t err = PQ_OK;
    if (d.kind == DICTIONARY_PAGE) {
      if (physical == P_BYTES) {
        err = plain_byte_array_warp(pages, d.offset, end, d.num_values, slot_start, slot_len, rows + d.link);
      } else if (d.num_values * width > d.bytes) {
        err = PQ_TRUNCATED;
      }
      if (lane == 0) {
        value_start[pg] = d.offset;
        status[pg] = err;
      }
      return;
    }
    // definition levels
    int64_t values = d.offset;
    int64_t non_null = d.num_values;
    if (d.max_def == 0) {
      for (int64_t i = lane; i < d.num_values; i += 32) defined[d.row_start + i] = 1;
      if (d.def_bytes > 0) values += d.def_bytes;
    } else {
      int64_t level_bytes = d.def_bytes;
      int64_t levels = d.offset;
      if (level_bytes < 0) {  // page v1: the levels' length precedes them
        if (d.bytes < 4) err = PQ_TRUNCATED;
        level_bytes = err == PQ_OK ? static_cast<int64_t>(load_le(pages + d.offset, 4)) : 0;
        levels += 4;
        if (levels + level_bytes > end) err = PQ_TRUNCATED;
      }
      int64_t ones = 0;
      bool bad = false;
      if (err == PQ_OK) {
        err = rle_hybrid_decode_warp(pages + levels, level_bytes, 1, d.num_values, [&](int64_t i, uint32_t v) {
          bad |= v > 1;
          ones += v & 1;
          defined[d.row_start + i] = static_cast<uint8_t>(v & 1);
        });
      }
      if (err == PQ_OK && __any_sync(FULL_WARP, bad)) err = PQ_BAD_LEVEL;
      non_null = warp_sum(ones);
      values = levels + level_bytes;
    }
    // values
    if (err == PQ_OK && !encoding_fits(d.kind, physical, width)) err = PQ_BAD_ENCODING;
    if (err == PQ_OK && d.kind == DELTA_BINARY_PACKED) {
      err = delta_binary_packed_decode_warp(pages + values, end - values, non_null, [&](int64_t i, uint64_t v) {
        deltas[d.row_start + i] = static_cast<int64_t>(v);
      });
    } else if (err == PQ_OK && d.kind == DELTA_LENGTH_BYTE_ARRAY) {
      int64_t pos = values;
      err = delta_length_byte_array_warp(pages, end, &pos, non_null, slot_len + d.row_start, slot_start + d.row_start);
    } else if (err == PQ_OK && d.kind == DELTA_BYTE_ARRAY) {
      err = delta_byte_array_warp(pages, end, values, non_null, indices + d.row_start, slot_len + d.row_start,
                                  slot_start + d.row_start);
      if (err == PQ_OK && physical == P_FIXED) {
        err = rebuild_fixed(pages, non_null, width, indices + d.row_start, slot_len + d.row_start,
                            slot_start + d.row_start, deltas + d.row_start);
      }
    } else if (err == PQ_OK && d.kind == BYTE_STREAM_SPLIT) {
      // as parquet-mr reads it: the streams split the rest of the page evenly, each at least a byte per value
      if ((end - values) % width != 0) err = PQ_SIZE_MISMATCH;
      else if ((end - values) / width < non_null) err = PQ_TRUNCATED;
    } else if (err == PQ_OK && d.kind == PLAIN) {
      if (physical == P_BYTES) {
        err = plain_byte_array_warp(pages, values, end, non_null, slot_start, slot_len, d.row_start);
      } else if ((physical == P_BOOLEAN ? (non_null + 7) / 8 : non_null * width) > end - values) {
        err = PQ_TRUNCATED;
      }
    } else if (err == PQ_OK && non_null > 0) {
      int bit_width = 1;
      int64_t from = values;
      int64_t limit = end;
      uint32_t bound = 2;  // RLE booleans are 0 or 1
      if (d.kind == DICTIONARY_ENCODED) {
        if (values >= end) err = PQ_TRUNCATED;
        bit_width = err == PQ_OK ? pages[values] : 0;
        from = values + 1;
        bound = static_cast<uint32_t>(table[d.link].num_values);
      } else {  // RLE booleans: a 4-byte length first
        if (values + 4 > end) err = PQ_TRUNCATED;
        const int64_t n = err == PQ_OK ? static_cast<int64_t>(load_le(pages + values, 4)) : 0;
        from = values + 4;
        limit = from + n;
        if (limit > end) err = PQ_TRUNCATED;
      }
      bool bad = false;
      if (err == PQ_OK) {
        err = rle_hybrid_decode_warp(pages + from, limit - from, bit_width, non_null, [&](int64_t i, uint32_t v) {
          bad |= v >= bound;
          indices[d.row_start + i] = static_cast<int32_t>(v);
        });
      }
      if (err == PQ_OK && __any_sync(FULL_WARP, bad)) err = d.kind == DICTIONARY_ENCODED ? PQ_BAD_INDEX : PQ_BAD_LEVEL;
    }
    if (lane == 0) {
      value_start[pg] = values;
      status[pg] = err;
    }
  });
}

// A data page's status after its dictionary's: a page cannot be decoded from a corrupt dictionary.
__device__ __forceinline__ bool page_usable(const PageDesc& d, int64_t pg, int32_t* status) {
  if (status[pg] != PQ_OK) return false;
  if (d.kind == DICTIONARY_ENCODED && status[d.link] != PQ_OK) {
    if (lane_id() == 0) status[pg] = PQ_DICTIONARY;
    return false;
  }
  return true;
}

// Calls f(row, value_index) for each row of a data page, value_index being the row's rank among the page's non-null
// rows (-1 for a null row). The block's warps split the page into even runs of 32-row tiles: a page holds up to
// 20,000 rows (parquet-mr's limit), 10^5 and more from writers that cut pages by size alone, a long serial chain of
// tiles for one warp, and a batch's column has few pages. Every thread of the block calls it for the same page (it
// synchronises the block).
template <typename F>
__device__ __forceinline__ void for_each_row(const PageDesc& d, const uint8_t* defined, F f) {
  // per warp of the block: the non-null rows of its run (static, so that the CPU emulation shares it in a block too)
  static __shared__ int64_t run_non_null[32];
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int warps = static_cast<int>(blockDim.x >> 5);
  const int64_t tiles = (d.num_values + 31) / 32;
  const int64_t per_warp = (tiles + warps - 1) / warps;
  const int64_t first = min(d.num_values, warp * per_warp * 32);
  const int64_t last = min(d.num_values, (warp + 1) * per_warp * 32);
  int64_t count = 0;
  for (int64_t tile = first; tile < last; tile += 32) {
    const int64_t i = tile + lane_id();
    count += __popc(__ballot_sync(FULL_WARP, i < last && defined[d.row_start + i] != 0));
  }
  if (lane_id() == 0) run_non_null[warp] = count;
  __syncthreads();
  int64_t base = 0;
  for (int w = 0; w < warp; w++) base += run_non_null[w];
  __syncthreads();  // the block's next page writes the counts again
  for (int64_t tile = first; tile < last; tile += 32) {
    const int64_t i = tile + lane_id();
    const bool valid = i < last && defined[d.row_start + i] != 0;
    const uint32_t ballot = __ballot_sync(FULL_WARP, valid);
    if (i < last) f(d.row_start + i, valid ? base + __popc(ballot & lanemask_lt()) : -1);
    base += __popc(ballot);
  }
}

// One block per data page (for_each_row): fixed-width values into out (out_width bytes each; nulls 0). INT32 narrows
// to byte/short or widens to a 64-bit decimal, fixed-length decimals are big-endian, booleans become one byte each
// (packed later); unsigned 64-bit integers fill 16 bytes, their upper 8 zero (other values wider than 8 bytes
// sign-extend).
// BYTE_STREAM_SPLIT values gather their bytes from the page's streams, a lane a value (each stream read coalesced).
extern "C" __global__ void sw_pq_decode_fixed(const uint8_t* pages, const PageDesc* table, int32_t page_count,
                                              int32_t physical, int32_t type_length, const uint8_t* defined,
                                              const int32_t* indices, const int64_t* deltas,
                                              const int64_t* value_start, uint8_t* out, int32_t out_width,
                                              int32_t* status) {
  for_each_block_tile(page_count, [&](int64_t pg) {
    const PageDesc d = table[pg];
    if (d.kind == DICTIONARY_PAGE || !page_usable(d, pg, status)) return;  // alike for the whole block
    const int width = physical_width(physical, type_length);
    const int64_t values = value_start[pg];
    const int64_t dictionary = d.kind == DICTIONARY_ENCODED ? value_start[d.link] : 0;
    const int64_t stride = width > 0 ? (d.offset + d.bytes - values) / width : 0;  // BYTE_STREAM_SPLIT
    bool overflow = false;
    for_each_row(d, defined, [&](int64_t row, int64_t k) {
      int64_t v = 0;
      if (k >= 0) {
        if (physical == P_BOOLEAN) {
          v = d.kind == RLE_BOOLEAN ? indices[d.row_start + k] : (pages[values + (k >> 3)] >> (k & 7)) & 1;
        } else {
          const bool delta = d.kind == DELTA_BINARY_PACKED;  // INT32 or INT64: their low bytes as stored
          uint8_t split[8];  // BYTE_STREAM_SPLIT: the value's bytes, gathered
          const uint8_t* p = pages + values + k * width;
          if (d.kind == DICTIONARY_ENCODED) {
            p = pages + dictionary + static_cast<int64_t>(indices[d.row_start + k]) * width;
          } else if (d.kind == DELTA_BYTE_ARRAY) {  // rebuilt by sw_pq_prepare
            p = reinterpret_cast<const uint8_t*>(deltas + d.row_start + k);
          } else if (d.kind == BYTE_STREAM_SPLIT) {
            for (int b = 0; b < width; b++) split[b] = pages[values + b * stride + k];
            p = split;
          }
          const int64_t stored = delta ? deltas[d.row_start + k] : 0;
          if (physical == P_INT96) {
            v = int96_micros(p);
          } else if (physical == P_UINT32) {
            v = delta ? static_cast<int64_t>(static_cast<uint32_t>(stored)) : static_cast<int64_t>(load_le(p, 4));
          } else {
            v = !delta ? load_value(p, width, physical == P_FIXED)
                : width == 4 ? static_cast<int64_t>(static_cast<int32_t>(stored)) : stored;
            if (physical == P_INT64_MILLIS) {
              constexpr int64_t limit = 9223372036854775LL;  // INT64_MAX / 1000
              overflow |= v > limit || v < -limit;
              v = v > limit || v < -limit ? 0 : v * 1000;
            }
          }
        }
      }
      uint8_t* o = out + row * out_width;
      const uint64_t high = physical == P_UINT64 || v >= 0 ? 0 : ~0ULL;
      for (int b = 0; b < out_width; b++) {
        o[b] = static_cast<uint8_t>((b < 8 ? static_cast<uint64_t>(v) : high) >> (8 * (b & 7)));
      }
    });
    if (__any_sync(FULL_WARP, overflow) && lane_id() == 0) status[pg] = PQ_OVERFLOW;
  });
}

// bitmap bit i = (bytes[i] != 0) for i < n, a 32-bit word per warp iteration (bits past n are 0).
extern "C" __global__ void sw_pq_pack_bits(const uint8_t* bytes, int64_t n, uint32_t* bitmap) {
  for_each_warp_tile((n + 31) / 32, [&](int64_t w) {
    const int64_t i = w * 32 + lane_id();
    const uint32_t word = __ballot_sync(FULL_WARP, i < n && bytes[i] != 0);
    if (lane_id() == 0) bitmap[w] = word;
  });
}

// One block per data page of byte arrays (for_each_row): each row's string slot for sw_pq_string_copy (-1 for null,
// and for the rows of DELTA_BYTE_ARRAY pages, which sw_pq_delta_strings writes) and length (the offsets before their
// scan); total accumulates the column's bytes, so the host can refuse a column past 2^31 - 1 bytes.
extern "C" __global__ void sw_pq_string_lengths(const PageDesc* table, int32_t page_count, const uint8_t* defined,
                                                const int32_t* indices, const int32_t* slot_len, int64_t rows,
                                                int32_t* lengths, int32_t* row_slot,
                                                unsigned long long* total, int32_t* status) {
  for_each_block_tile(page_count, [&](int64_t pg) {
    const PageDesc d = table[pg];
    if (d.kind == DICTIONARY_PAGE || !page_usable(d, pg, status)) return;  // alike for the whole block
    const int64_t dictionary_slots = d.kind == DICTIONARY_ENCODED ? rows + table[d.link].link : 0;
    int64_t bytes = 0;
    for_each_row(d, defined, [&](int64_t row, int64_t k) {
      int64_t slot = -1;
      if (k >= 0) slot = d.kind == DICTIONARY_ENCODED ? dictionary_slots + indices[d.row_start + k] : d.row_start + k;
      const int32_t n = slot >= 0 ? slot_len[slot] : 0;
      lengths[row] = n;
      row_slot[row] = d.kind == DELTA_BYTE_ARRAY ? -1 : static_cast<int32_t>(slot);
      bytes += n;
    });
    bytes = warp_sum(bytes);
    if (lane_id() == 0) atomicAdd(total, static_cast<unsigned long long>(bytes));
  });
}

// One warp per row: its string's bytes from the pages to data[offsets[row]].
extern "C" __global__ void sw_pq_string_copy(const uint8_t* pages, const int32_t* slot_start, const int32_t* row_slot,
                                             const int32_t* offsets, int64_t rows, uint8_t* data) {
  for_each_warp_tile(rows, [&](int64_t row) {
    const int32_t slot = row_slot[row];
    if (slot < 0) return;
    const uint8_t* from = pages + slot_start[slot];
    uint8_t* to = data + offsets[row];
    const int32_t n = offsets[row + 1] - offsets[row];
    for (int32_t i = lane_id(); i < n; i += 32) to[i] = from[i];
  });
}

// One warp per DELTA_BYTE_ARRAY page of byte arrays, after the offsets: value k is the first indices[row_start + k]
// bytes of value k - 1, already in data, then its suffix from the page. Each value needs the one before it, so the
// warp walks the page's values in order with its lanes copying each value's bytes together, and the pages decode
// side by side (cuDF decodes them so too).
extern "C" __global__ void sw_pq_delta_strings(const uint8_t* pages, const PageDesc* table, int32_t page_count,
                                               const uint8_t* defined, const int32_t* indices,
                                               const int32_t* slot_start, const int32_t* offsets, uint8_t* data,
                                               int32_t* status) {
  for_each_warp_tile(page_count, [&](int64_t pg) {
    const PageDesc d = table[pg];
    if (d.kind != DELTA_BYTE_ARRAY || !page_usable(d, pg, status)) return;
    const uint8_t* previous = data;  // the value before (the first value's prefix is empty)
    int64_t k = 0;
    for (int64_t tile = 0; tile < d.num_values; tile += 32) {
      const int64_t i = tile + lane_id();
      uint32_t valid = __ballot_sync(FULL_WARP, i < d.num_values && defined[d.row_start + i] != 0);
      for (; valid != 0; valid &= valid - 1, k++) {
        const int64_t row = d.row_start + tile + __ffs(static_cast<int>(valid)) - 1;
        const int32_t prefix = indices[d.row_start + k];
        const uint8_t* suffix = pages + slot_start[d.row_start + k];
        uint8_t* to = data + offsets[row];
        const int32_t n = offsets[row + 1] - offsets[row];
        for (int32_t b = lane_id(); b < n; b += 32) to[b] = b < prefix ? previous[b] : suffix[b - prefix];
        __syncwarp();  // the next value reads these bytes
        previous = to;
      }
    }
  });
}
