// Zstandard decompression of one Parquet page by one warp (RFC 8878; facebook/zstd doc/zstd_compression_format.md):
// the frames of the page one after another (skippable frames skipped), their blocks raw, RLE or compressed. A
// compressed block's literals are copied from the input (raw), or decoded to the end of the frame's output
// (RLE, or Huffman-coded: 4 streams on 4 lanes) where the sequences read them before their own writes reach them,
// as the reference decoder does; its sequences are decoded by one lane and executed by the warp in rounds
// (zstd_sequences.cuh). The content checksum is skipped; a dictionary id is ignored as by the reference decoder
// without a dictionary (a match into one fails as a match before the output).
//
// Every read stays inside [src, src + src_len) and every write inside [dst, dst + dst_len); the page must
// decompress to exactly dst_len bytes.
#pragma once
#include <cstdint>
#include "lz_round.cuh"
#include "parquet_status.cuh"
#include "varint.cuh"
#include "warp.cuh"
#include "zstd_huffman.cuh"
#include "zstd_sequences.cuh"

namespace sparkwarp {

// A warp's tables, in shared memory after its ring; they live across the blocks of a frame (repeat modes).
struct ZstdWorkspace {
  ZstdSequenceTables sequences;
  ZstdHuffmanTable huffman;
  ZstdHuffmanScratch huffman_scratch;
};

// Shared memory a warp's workspace takes at most (CudaParquetPrimitives.ZSTD_WORKSPACE_BYTES).
constexpr int ZSTD_WORKSPACE_BYTES = 12 * 1024;
static_assert(sizeof(ZstdWorkspace) <= ZSTD_WORKSPACE_BYTES, "CudaParquetPrimitives.ZSTD_WORKSPACE_BYTES");

constexpr uint32_t ZSTD_MAGIC = 0xFD2FB528u;
constexpr int64_t ZSTD_BLOCK_MAX = 128 * 1024;

// Reads a compressed block's literals section at [src, src + len) (all lanes): raw literals stay where they are,
// others are decoded to dst[dst_len - size, dst_len), which must lie past the *out bytes written. Sets *lit and
// *taken (the section's bytes); returns the status on every lane.
__device__ int32_t zstd_literals_warp(const uint8_t* src, int64_t len, uint8_t* dst, int64_t dst_len, int64_t out,
                                      int64_t block_max, ZstdWorkspace* w, ZstdLiterals* lit, int64_t* taken) {
  if (len < 2) return PQ_BAD_FRAME;
  const int type = src[0] & 3;
  const int format = (src[0] >> 2) & 3;
  if (type <= 1) {  // raw or RLE: the size in 5, 12 or 20 bits
    const int header = format == 1 ? 2 : format == 3 ? 3 : 1;
    if (header > len) return PQ_TRUNCATED;
    const int64_t size = header == 1 ? src[0] >> 3
                         : header == 2 ? (src[0] >> 4) | (src[1] << 4)
                                       : (src[0] >> 4) | (src[1] << 4) | (static_cast<int64_t>(src[2]) << 12);
    if (size > block_max) return PQ_BAD_FRAME;
    if (type == 0) {
      if (header + size > len) return PQ_TRUNCATED;
      *lit = {src, len, header, size, false};
      *taken = header + size;
      return PQ_OK;
    }
    if (header + 1 > len) return PQ_TRUNCATED;
    if (size > dst_len - out) return PQ_OVERRUN;
    const uint8_t b = src[header];
    for (int64_t i = lane_id(); i < size; i += 32) dst[dst_len - size + i] = b;
    __syncwarp();
    *lit = {dst, dst_len, dst_len - size, size, true};
    *taken = header + 1;
    return PQ_OK;
  }
  // Huffman-coded (type 2: a tree description first) or treeless (type 3: the previous table)
  if (len < 5) return PQ_BAD_FRAME;
  const bool four = format != 0;
  const int header = format <= 1 ? 3 : format == 2 ? 4 : 5;
  const int bits = format <= 1 ? 10 : format == 2 ? 14 : 18;
  uint64_t h = 0;
  for (int k = 0; k < header; k++) h |= static_cast<uint64_t>(src[k]) << (8 * k);
  const int64_t size = static_cast<int64_t>((h >> 4) & ((1u << bits) - 1));
  const int64_t stored = static_cast<int64_t>((h >> (4 + bits)) & ((1u << bits) - 1));
  if (size > block_max || (four && size < 6)) return PQ_BAD_FRAME;
  if (header + stored > len) return PQ_TRUNCATED;
  if (size > dst_len - out) return PQ_OVERRUN;
  int64_t tree = 0;
  if (type == 2) {
    int symbols = 0;
    tree = zstd_huffman_weights(src + header, stored, &w->huffman_scratch, &symbols);
    if (tree < 0) return static_cast<int32_t>(-tree);
    zstd_huffman_build(&w->huffman_scratch, symbols, &w->huffman);
  } else if (w->huffman.max_bits == 0) {
    return PQ_BAD_FRAME;
  }
  const int32_t err = zstd_huffman_literals(&w->huffman, src + header + tree, stored - tree, four,
                                            dst + dst_len - size, size);
  __syncwarp();
  *lit = {dst, dst_len, dst_len - size, size, true};
  *taken = header + stored;
  return err;
}

// Decodes a compressed block [src, src + len) into dst[*out..] (all lanes); returns the status on every lane.
__device__ int32_t zstd_block_warp(const uint8_t* src, int64_t len, uint8_t* dst, int64_t dst_len, int64_t* out,
                                   int64_t block_max, ZstdWorkspace* w, uint8_t* ring, int32_t ring_bytes) {
  ZstdLiterals lit;
  int64_t pos = 0;
  const int64_t room = dst_len - *out < block_max ? dst_len - *out : block_max;
  int32_t err = zstd_literals_warp(src, len, dst, dst_len, *out, room, w, &lit, &pos);
  if (err != PQ_OK) return err;
  // the sequences section's header: the count, then the three codes' modes
  if (pos >= len) return PQ_TRUNCATED;
  int64_t count = src[pos];
  if (count == 0) {
    if (pos + 1 != len) return PQ_BAD_FRAME;
    return zstd_copy_literals(lit.src, lit.src_len, lit.pos, lit.size, dst, dst_len, out, ring, ring_bytes);
  }
  if (count < 128) {
    pos += 1;
  } else if (count < 255) {
    if (pos + 2 > len) return PQ_TRUNCATED;
    count = ((count - 128) << 8) + src[pos + 1];
    pos += 2;
  } else {
    if (pos + 3 > len) return PQ_TRUNCATED;
    count = src[pos + 1] + (src[pos + 2] << 8) + 0x7F00;
    pos += 3;
  }
  if (pos >= len) return PQ_TRUNCATED;
  const int modes = src[pos++];
  if ((modes & 3) != 0) return PQ_BAD_FRAME;
  ZstdSequenceTables* t = &w->sequences;
  err = zstd_code_table(ZSTD_LL, modes >> 6, src, &pos, len, t);
  if (err == PQ_OK) err = zstd_code_table(ZSTD_OF, (modes >> 4) & 3, src, &pos, len, t);
  if (err == PQ_OK) err = zstd_code_table(ZSTD_ML, (modes >> 2) & 3, src, &pos, len, t);
  if (err != PQ_OK) return err;
  if (lane_id() == 0) t->built = true;
  __syncwarp();
  return zstd_sequences_warp(src + pos, len - pos, count, t, lit, dst, dst_len, out, ring, ring_bytes);
}

// Decodes the frame at src[*pos..] (its magic number checked) into dst[*out..]; all lanes call it and advance
// *pos and *out past it. Returns the status on every lane.
__device__ int32_t zstd_frame_warp(const uint8_t* src, int64_t src_len, int64_t* pos, uint8_t* dst, int64_t dst_len,
                                   int64_t* out, ZstdWorkspace* w, uint8_t* ring, int32_t ring_bytes) {
  int64_t p = *pos + 4;
  const int descriptor = src[p++];
  const bool single_segment = (descriptor >> 5) & 1;
  const int id_bytes = (1 << (descriptor & 3)) >> 1;  // 0, 1, 2, 4
  const int size_flag = descriptor >> 6;
  const int size_bytes = size_flag == 0 ? (single_segment ? 1 : 0) : 1 << size_flag;
  if ((descriptor & 8) != 0) return PQ_BAD_FRAME;
  if (p + (single_segment ? 0 : 1) + id_bytes + size_bytes > src_len) return PQ_TRUNCATED;
  uint64_t window = 0;
  if (!single_segment) {
    const int exponent = src[p] >> 3;
    if (exponent + 10 > 31) return PQ_BAD_FRAME;
    window = 1ull << (exponent + 10);
    window += (window >> 3) * (src[p] & 7);
    p++;
  }
  p += id_bytes;
  int64_t content = -1;  // unknown
  if (size_bytes > 0) {
    content = static_cast<int64_t>(load_le(src + p, size_bytes)) + (size_bytes == 2 ? 256 : 0);
    p += size_bytes;
  }
  if (single_segment) window = static_cast<uint64_t>(content);
  const int64_t block_max = window < static_cast<uint64_t>(ZSTD_BLOCK_MAX) ? static_cast<int64_t>(window)
                                                                          : ZSTD_BLOCK_MAX;
  // the frame's output starts afresh: its tables, repeat offsets and the base of its back-references
  if (lane_id() == 0) {
    w->sequences.built = false;
    w->sequences.rep[0] = 1;
    w->sequences.rep[1] = 4;
    w->sequences.rep[2] = 8;
    w->huffman.max_bits = 0;
  }
  __syncwarp();
  uint8_t* frame = dst + *out;
  const int64_t frame_len = dst_len - *out;
  int64_t written = 0;
  bool last = false;
  while (!last) {
    if (p + 3 > src_len) return PQ_TRUNCATED;
    const uint32_t header = static_cast<uint32_t>(load_le(src + p, 3));
    p += 3;
    last = header & 1;
    const int type = (header >> 1) & 3;
    const int64_t size = header >> 3;
    int32_t err = PQ_OK;
    if (type == 3) return PQ_BAD_FRAME;
    if (type == 1) {  // RLE: one byte, `size` times
      if (p + 1 > src_len) return PQ_TRUNCATED;
      if (size > frame_len - written) return PQ_OVERRUN;
      for (int64_t i = lane_id(); i < size; i += 32) frame[written + i] = src[p];
      __syncwarp();
      written += size;
      lz_refill_ring(frame, written, ring, ring_bytes);
      p += 1;
      continue;
    }
    if (p + size > src_len) return PQ_TRUNCATED;
    if (type == 0) {
      err = zstd_copy_literals(src + p, size, 0, size, frame, frame_len, &written, ring, ring_bytes);
    } else if (size > block_max) {
      err = PQ_BAD_FRAME;
    } else {
      err = zstd_block_warp(src + p, size, frame, frame_len, &written, block_max, w, ring, ring_bytes);
    }
    if (err != PQ_OK) return err;
    p += size;
  }
  if (content >= 0 && written != content) return PQ_SIZE_MISMATCH;
  if ((descriptor >> 2) & 1) {  // the content checksum: skipped
    if (p + 4 > src_len) return PQ_TRUNCATED;
    p += 4;
  }
  *pos = p;
  *out += written;
  return PQ_OK;
}

// Decompresses one page of ZSTD frames; all 32 lanes call it with the same arguments. `ring` is the warp's own
// `ring_bytes` (a power of two, at least 4096) of shared memory, `w` its workspace. Returns the status on every lane.
__device__ int32_t zstd_decompress_warp(const uint8_t* __restrict__ src, int64_t src_len, uint8_t* __restrict__ dst,
                                        int64_t dst_len, uint8_t* ring, int32_t ring_bytes, ZstdWorkspace* w) {
  int64_t pos = 0;
  int64_t out = 0;
  while (pos < src_len) {
    if (src_len - pos < 5) return PQ_TRUNCATED;  // as the reference decoder: no frame is shorter
    const uint32_t magic = static_cast<uint32_t>(load_le(src + pos, 4));
    if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {  // a skippable frame: its size, then as many bytes
      if (src_len - pos < 8) return PQ_TRUNCATED;
      const int64_t size = static_cast<int64_t>(load_le(src + pos + 4, 4));
      if (8 + size > src_len - pos) return PQ_TRUNCATED;
      pos += 8 + size;
      continue;
    }
    if (magic != ZSTD_MAGIC) return PQ_BAD_FRAME;
    const int32_t err = zstd_frame_warp(src, src_len, &pos, dst, dst_len, &out, w, ring, ring_bytes);
    if (err != PQ_OK) return err;
  }
  return out == dst_len ? PQ_OK : PQ_SIZE_MISMATCH;
}

}  // namespace sparkwarp
