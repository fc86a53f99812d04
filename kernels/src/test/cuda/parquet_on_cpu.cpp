// Runs the kernels of parquet.cu on the CPU (warp_emulation.h) over a case that
// io.sparkwarp.kernels.parquet.ParquetKernelsOnCpuTest wrote: compressed input with its block table, the page table
// of one column, and what the host backend made of it (the decompressed pages and the column's buffers, or that it
// raised). Runs the kernels in the order CudaParquetPrimitives launches them (the offsets' scan done here) with two
// blocks of two warps (decompression: one block; the kernels with static shared memory, whose one copy here all
// threads share, a block at a time), and compares every buffer byte for byte. Prints each difference;
// exits 1 if there was any.
//
// usage: parquet_on_cpu CASE_DIR
#include "warp_emulation.h"

#include "parquet.cu"
#include "emulated_buffers.h"

namespace {

constexpr int BLOCKS = 2;
constexpr int THREADS = 64;
constexpr int RING_BYTES = 4096;  // CudaParquetPrimitives.RING_BYTES

}  // namespace

// The decompression's dynamic shared memory: one block's worth (the ZSTD kernel's, the largest), so that launch runs
// one block (blocks run at once here and would share it).
alignas(16) uint8_t sw_pq_rings[THREADS / 32 * (RING_BYTES + ZSTD_WORKSPACE_BYTES)];

namespace {

// The first non-zero status of `count`, or 0.
int32_t first_error(const Buffer& status, int32_t count) {
  for (int32_t i = 0; i < count; i++) {
    if (status.as<int32_t>()[i] != 0) return status.as<int32_t>()[i];
  }
  return 0;
}

void compare(const Buffer& expected, const uint8_t* actual, size_t bytes, const std::string& what) {
  if (expected.bytes != bytes) {
    fail(what + ": " + std::to_string(bytes) + " bytes, expected " + std::to_string(expected.bytes));
  } else if (memcmp(expected.data, actual, bytes) != 0) {
    for (size_t i = 0; i < bytes; i++) {
      if (expected.data[i] != actual[i]) {
        fail(what + ": first difference at byte " + std::to_string(i));
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: parquet_on_cpu CASE_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  // case.txt: pages bytes, physical type, type length, output width (0: bits, -1: strings), rows, dictionary entries,
  // whether the host raised
  std::ifstream meta(dir + "/case.txt");
  int64_t pages_bytes, rows, dictionary_entries;
  int32_t physical, type_length, out_width, raised;
  meta >> pages_bytes >> physical >> type_length >> out_width >> rows >> dictionary_entries >> raised;
  auto input = read(dir + "/input.bin");
  auto blocks = read(dir + "/blocks.bin");
  auto table = read(dir + "/table.bin");
  const int32_t block_count = static_cast<int32_t>(blocks->bytes / sizeof(BlockDesc));
  const int32_t page_count = static_cast<int32_t>(table->bytes / sizeof(PageDesc));

  // fragments.bin: SnappyFragments.firstSlots of the blocks, or nothing where no block splits
  auto fragments = read(dir + "/fragments.bin");
  const int64_t* first_slot = fragments->bytes == 0 ? nullptr : fragments->as<int64_t>();
  Buffer pages(pages_bytes), block_status(4 * block_count), slot_source(first_slot ? 8 * first_slot[block_count] : 0);
  if (first_slot != nullptr) {
    launch_blocks_in_turn(BLOCKS, THREADS, [&] {
      sw_pq_snappy_split(input->data, blocks->as<BlockDesc>(), block_count, first_slot, slot_source.as<int64_t>(),
                         block_status.as<int32_t>());
    });
    launch(1, THREADS, [&] {
      sw_pq_snappy_fragments(input->data, pages.data, blocks->as<BlockDesc>(), block_count, first_slot,
                             slot_source.as<int64_t>(), RING_BYTES, block_status.as<int32_t>());
    });
  }
  launch(1, THREADS, [&] {
    sw_pq_decompress(input->data, pages.data, blocks->as<BlockDesc>(), block_count, RING_BYTES, first_slot,
                     block_status.as<int32_t>());
  });
  launch(1, THREADS, [&] {
    sw_pq_decompress_lz4(input->data, pages.data, blocks->as<BlockDesc>(), block_count, RING_BYTES,
                         block_status.as<int32_t>());
  });
  launch(1, THREADS, [&] {
    sw_pq_decompress_zstd(input->data, pages.data, blocks->as<BlockDesc>(), block_count, RING_BYTES,
                          block_status.as<int32_t>());
  });
  int32_t error = first_error(block_status, block_count);
  if (error == 0) {
    compare(*read(dir + "/pages.bin"), pages.data, pages_bytes, "decompressed pages");
    const int64_t slots = rows + dictionary_entries;  // PageTable.stringSlots at most
    Buffer status(4 * page_count), defined(rows), indices(4 * rows), value_start(8 * page_count), slot_start(4 * slots),
        slot_len(4 * slots), validity((rows + 7) / 8), deltas(8 * rows);
    launch_blocks_in_turn(BLOCKS, THREADS, [&] {
      sw_pq_prepare(pages.data, table->as<PageDesc>(), page_count, physical, type_length, defined.data,
                    indices.as<int32_t>(), deltas.as<int64_t>(), value_start.as<int64_t>(),
                    slot_start.as<int32_t>(), slot_len.as<int32_t>(), rows, status.as<int32_t>());
    });
    if (out_width >= 0) {
      const int width = out_width == 0 ? 1 : out_width;
      Buffer out(rows * width), data(out_width == 0 ? (rows + 7) / 8 : rows * width);
      launch_blocks_in_turn(BLOCKS, THREADS, [&] {
        sw_pq_decode_fixed(pages.data, table->as<PageDesc>(), page_count, physical, type_length, defined.data,
                           indices.as<int32_t>(), deltas.as<int64_t>(), value_start.as<int64_t>(), out.data, width,
                           status.as<int32_t>());
      });
      error = first_error(status, page_count);
      if (error == 0) {
        launch(BLOCKS, THREADS, [&] { sw_pq_pack_bits(defined.data, rows, validity.as<uint32_t>()); });
        if (out_width == 0) launch(BLOCKS, THREADS, [&] { sw_pq_pack_bits(out.data, rows, data.as<uint32_t>()); });
        compare(*read(dir + "/data.bin"), out_width == 0 ? data.data : out.data, data.bytes, "values");
      }
    } else {
      Buffer offsets(4 * (rows + 1)), row_slot(4 * rows), total(8);
      *total.as<unsigned long long>() = 0;
      launch_blocks_in_turn(BLOCKS, THREADS, [&] {
        sw_pq_string_lengths(table->as<PageDesc>(), page_count, defined.data, indices.as<int32_t>(),
                             slot_len.as<int32_t>(), rows, offsets.as<int32_t>(), row_slot.as<int32_t>(),
                             total.as<unsigned long long>(), status.as<int32_t>());
      });
      error = first_error(status, page_count);
      if (error == 0) {
        int32_t* o = offsets.as<int32_t>();
        int64_t sum = 0;
        for (int64_t r = 0; r < rows; r++) {
          const int32_t n = o[r];
          o[r] = static_cast<int32_t>(sum);
          sum += n;
        }
        o[rows] = static_cast<int32_t>(sum);
        if (static_cast<unsigned long long>(sum) != *total.as<unsigned long long>()) fail("string byte total");
        Buffer data(sum);
        launch(BLOCKS, THREADS, [&] {
          sw_pq_string_copy(pages.data, slot_start.as<int32_t>(), row_slot.as<int32_t>(), o, rows, data.data);
        });
        launch(BLOCKS, THREADS, [&] {
          sw_pq_delta_strings(pages.data, table->as<PageDesc>(), page_count, defined.data, indices.as<int32_t>(),
                              slot_start.as<int32_t>(), o, data.data, status.as<int32_t>());
        });
        launch(BLOCKS, THREADS, [&] { sw_pq_pack_bits(defined.data, rows, validity.as<uint32_t>()); });
        compare(*read(dir + "/offsets.bin"), offsets.data, offsets.bytes, "offsets");
        compare(*read(dir + "/data.bin"), data.data, data.bytes, "string bytes");
      }
    }
    if (error == 0) compare(*read(dir + "/validity.bin"), validity.data, validity.bytes, "validity");
  }
  // the device's ZSTD decoder is stricter than libzstd (zstd-jni) on a few damaged frames: it may reject one the host
  // decoded, never decoding other values (CudaParquetMatchesHostTest.stricterOnDevice)
  const bool stricter_zstd = error == PQ_BAD_FRAME && !raised;
  if ((error != 0) != (raised != 0) && !stricter_zstd) {
    fail(std::string("the kernels ") + (error != 0 ? "found an error (" + std::to_string(error) + ")" : "decoded")
         + ", the host " + (raised ? "raised" : "decoded"));
  }
  printf("%s: %d blocks, %d pages, %ld rows, status %d, %d failures\n", dir.c_str(), block_count, page_count,
         static_cast<long>(rows), error, failures);
  return failures == 0 ? 0 : 1;
}
