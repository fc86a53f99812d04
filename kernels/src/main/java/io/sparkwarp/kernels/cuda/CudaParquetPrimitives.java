package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.parquet.ColumnSpec;
import io.sparkwarp.kernels.parquet.CompressedBlocks;
import io.sparkwarp.kernels.parquet.DecodeError;
import io.sparkwarp.kernels.parquet.PageTable;
import io.sparkwarp.kernels.parquet.ParquetDataException;
import io.sparkwarp.kernels.parquet.ParquetPrimitives;
import io.sparkwarp.kernels.parquet.PhysicalType;
import io.sparkwarp.kernels.parquet.SnappyFragments;
import java.util.Arrays;
import java.util.Set;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * {@link ParquetPrimitives} as launches of {@code parquet.cu}. Each call stages its table in pinned memory, uploads
 * it, launches a warp per block or page, and reads the status words back in one synchronisation (strings read the
 * column's byte total back with them, to size the data, then scan the lengths into offsets with {@code scan.cu}).
 */
final class CudaParquetPrimitives implements ParquetPrimitives {
  /**
   * Shared memory per decompressing warp for its ring of recent output (lz_round.cuh): back-references up to about
   * this far read it instead of global memory; 8 warps of a block take 32 KiB, so 7 blocks fit an SM.
   */
  static final int RING_BYTES = 4096;

  /** Shared memory per ZSTD warp for its tables after its ring (zstd.cuh: ZSTD_WORKSPACE_BYTES). */
  static final int ZSTD_WORKSPACE_BYTES = 12 * 1024;

  /** The ZSTD kernel's shared memory a block: past the 48 KiB a kernel gets unless it asks. */
  private static final int ZSTD_SHARED = (RING_BYTES + ZSTD_WORKSPACE_BYTES) * (CudaKernel.BLOCK / 32);

  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel decompress;
  private final CudaKernel snappySplit;
  private final CudaKernel snappyFragments;
  /** Warps of the Snappy kernel resident at once once known: calls with fewer blocks split them (SnappyFragments). */
  private volatile long snappyWarps;
  private final CudaKernel decompressLz4;
  private final CudaKernel decompressZstd;
  private final CudaKernel prepare;
  private final CudaKernel decodeFixed;
  private final CudaKernel packBits;
  private final CudaKernel stringLengths;
  private final CudaKernel stringCopy;
  private final CudaKernel deltaStrings;

  CudaParquetPrimitives(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    this.scan = new CudaScan(backend, module);
    decompress = module.kernel("sw_pq_decompress");
    snappySplit = module.kernel("sw_pq_snappy_split");
    snappyFragments = module.kernel("sw_pq_snappy_fragments");
    decompressLz4 = module.kernel("sw_pq_decompress_lz4");
    decompressZstd = module.kernel("sw_pq_decompress_zstd");
    decompressZstd.allowSharedMemory(ZSTD_SHARED);
    prepare = module.kernel("sw_pq_prepare");
    decodeFixed = module.kernel("sw_pq_decode_fixed");
    packBits = module.kernel("sw_pq_pack_bits");
    stringLengths = module.kernel("sw_pq_string_lengths");
    stringCopy = module.kernel("sw_pq_string_copy");
    deltaStrings = module.kernel("sw_pq_delta_strings");
  }

  @Override
  public void decompress(DeviceBuffer input, DeviceBuffer output, CompressedBlocks blocks, DeviceStream stream) {
    blocks.checkRanges(input.size(), output.size());
    int count = blocks.count();
    if (count == 0) return;
    int shared = RING_BYTES * (CudaKernel.BLOCK / 32);
    long[] firstSlots = SnappyFragments.firstSlots(blocks, snappyWarps(shared));
    long[] words = blocks.words();
    int tableWords = words.length + (firstSlots == null ? 0 : firstSlots.length);
    long slots = firstSlots == null ? 0 : firstSlots[count];
    try (HostBlock staging = backend.transferMemory().pool().allocate(8L * tableWords + 4L * count);
        DeviceBuffer table = backend.allocate(8L * tableWords, stream);
        DeviceBuffer slotSource = backend.allocate(8L * slots, stream);
        DeviceBuffer status = backend.allocate(4L * count, stream)) {
      long[] tableData = words;
      if (firstSlots != null) {
        tableData = Arrays.copyOf(words, tableWords);
        System.arraycopy(firstSlots, 0, tableData, words.length, firstSlots.length);
      }
      upload(tableData, staging, table, stream);
      CudaStream s = CudaStream.of(stream);
      long firstSlot = firstSlots == null ? 0 : table.address() + 8L * words.length;
      if (firstSlots != null) {  // Snappy blocks of several fragments: split, then a warp a fragment
        snappySplit.launchGridStride(32L * count, s, new KernelArgs().pointer(input).pointer(table).i32(count)
            .address(firstSlot).pointer(slotSource).pointer(status));
        snappyFragments.launchGridStride(32L * slots, shared, s, new KernelArgs().pointer(input).pointer(output)
            .pointer(table).i32(count).address(firstSlot).pointer(slotSource).i32(RING_BYTES).pointer(status));
      }
      // a kernel per codec family, each decoding its own blocks; the LZ4 and ZSTD ones only for blocks of theirs
      Set<CompressedBlocks.Codec> codecs = blocks.codecs();
      if (codecs.contains(CompressedBlocks.Codec.SNAPPY) || codecs.contains(CompressedBlocks.Codec.UNCOMPRESSED)) {
        decompress.launchGridStride(32L * count, shared, s, new KernelArgs().pointer(input).pointer(output)
            .pointer(table).i32(count).i32(RING_BYTES).address(firstSlot).pointer(status));
      }
      KernelArgs args = new KernelArgs().pointer(input).pointer(output).pointer(table).i32(count).i32(RING_BYTES)
          .pointer(status);
      if (codecs.contains(CompressedBlocks.Codec.LZ4) || codecs.contains(CompressedBlocks.Codec.LZ4_RAW)) {
        decompressLz4.launchGridStride(32L * count, shared, s, args);
      }
      if (codecs.contains(CompressedBlocks.Codec.ZSTD)) {
        decompressZstd.launchGridStride(32L * count, ZSTD_SHARED, s, args);
      }
      long statusCopy = staging.address() + 8L * tableWords;
      backend.copyDeviceToHost(status, 0, statusCopy, 4L * count, stream);
      stream.synchronize();
      check("compressed block", statusCopy, count);
    }
  }

  /** Warps of the Snappy kernel (blocks of CudaKernel.BLOCK, {@code shared} bytes each) the device runs at once. */
  private long snappyWarps(int shared) {
    if (snappyWarps == 0) {
      snappyWarps = (long) decompress.residentBlocksPerSm(CudaKernel.BLOCK, shared)
          * backend.context().device().multiprocessors() * (CudaKernel.BLOCK / 32);
    }
    return snappyWarps;
  }

  @Override
  public DeviceColumn decode(DeviceBuffer pages, PageTable table, ColumnSpec spec, DeviceStream stream) {
    table.checkRanges(pages.size());
    int rows = Math.toIntExact(table.rowCount());
    int count = table.count();
    long[] words = table.words();
    boolean strings = spec.physical() == PhysicalType.BYTE_ARRAY;
    long slots = table.stringSlots(spec.physical());
    try (HostBlock staging = backend.transferMemory().pool().allocate(8L * words.length + 4L * count + 8);
        DeviceBuffer tableBuffer = backend.allocate(8L * words.length, stream);
        DeviceBuffer status = backend.allocate(4L * count, stream);
        DeviceBuffer defined = backend.allocate(rows, stream);
        DeviceBuffer indices = backend.allocate(4L * rows, stream);
        DeviceBuffer deltas = backend.allocate(table.needsRowWords() ? 8L * rows : 0, stream);
        DeviceBuffer valueStart = backend.allocate(8L * count, stream);
        DeviceBuffer slotStart = backend.allocate(4 * slots, stream);
        DeviceBuffer slotLength = backend.allocate(4 * slots, stream)) {
      upload(words, staging, tableBuffer, stream);
      CudaStream s = CudaStream.of(stream);
      long warps = 32L * Math.max(1, count);
      prepare.launchGridStride(warps, s, new KernelArgs().pointer(pages).pointer(tableBuffer).i32(count)
          .i32(spec.physical().ordinal()).i32(spec.typeLength()).pointer(defined).pointer(indices).pointer(deltas)
          .pointer(valueStart).pointer(slotStart).pointer(slotLength).i64(rows).pointer(status));
      Staged staged = new Staged(staging, 8L * words.length, count, status);
      return strings
          ? decodeStrings(pages, tableBuffer, table, spec.output(), rows, defined, indices, slotStart, slotLength,
              staged, stream)
          : decodeFixed(pages, tableBuffer, count, spec, rows, defined, indices, deltas, valueStart, staged, stream);
    }
  }

  /** Where the status words (and the string total after them) come back to, and the device status buffer. */
  private record Staged(HostBlock block, long offset, int count, DeviceBuffer status) {
    long statusAddress() {
      return block.address() + offset;
    }

    long totalAddress() {
      return statusAddress() + 4L * count;
    }
  }

  private DeviceColumn decodeFixed(DeviceBuffer pages, DeviceBuffer table, int count, ColumnSpec spec, int rows,
      DeviceBuffer defined, DeviceBuffer indices, DeviceBuffer deltas, DeviceBuffer valueStart, Staged staged,
      DeviceStream stream) {
    DeviceType type = spec.output();
    CudaStream s = CudaStream.of(stream);
    DeviceColumn column = DeviceColumn.allocate(backend, type, rows, 0, stream);
    try {
      boolean bits = type.isBitPacked();
      try (DeviceBuffer bytes = bits ? backend.allocate(rows, stream) : null) {
        DeviceBuffer out = bits ? bytes : column.data();
        decodeFixed.launchGridStride(32L * Math.max(1, count), s, new KernelArgs().pointer(pages).pointer(table)
            .i32(count).i32(spec.physical().ordinal()).i32(spec.typeLength()).pointer(defined).pointer(indices)
            .pointer(deltas).pointer(valueStart).pointer(out).i32(bits ? 1 : type.width()).pointer(staged.status()));
        if (bits) pack(bytes, rows, column.data(), s);
        pack(defined, rows, column.validity(), s);
        backend.copyDeviceToHost(staged.status(), 0, staged.statusAddress(), 4L * count, stream);
        stream.synchronize();
      }
      check("page", staged.statusAddress(), count);
      return column;
    } catch (RuntimeException e) {
      column.close();
      throw e;
    }
  }

  private DeviceColumn decodeStrings(DeviceBuffer pages, DeviceBuffer table, PageTable pageTable, DeviceType type,
      int rows, DeviceBuffer defined, DeviceBuffer indices, DeviceBuffer slotStart, DeviceBuffer slotLength,
      Staged staged, DeviceStream stream) {
    CudaStream s = CudaStream.of(stream);
    int count = pageTable.count();
    DeviceBuffer validity = null;
    DeviceBuffer offsets = null;
    try (DeviceBuffer rowSlot = backend.allocate(4L * rows, stream);
        DeviceBuffer total = backend.allocate(8, stream)) {
      validity = backend.allocate((rows + 7) / 8, stream);
      offsets = backend.allocate(4L * (rows + 1), stream);
      backend.fill(total, 0, 8, (byte) 0, stream);
      stringLengths.launchGridStride(32L * Math.max(1, count), s, new KernelArgs().pointer(table).i32(count)
          .pointer(defined).pointer(indices).pointer(slotLength).i64(rows).pointer(offsets).pointer(rowSlot)
          .pointer(total).pointer(staged.status()));
      backend.copyDeviceToHost(staged.status(), 0, staged.statusAddress(), 4L * count, stream);
      backend.copyDeviceToHost(total, 0, staged.totalAddress(), 8, stream);
      stream.synchronize();
      check("page", staged.statusAddress(), count);
      long bytes = MemoryUtil.getLong(staged.totalAddress());
      if (bytes > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("a string column of " + bytes + " bytes in one batch is past 2^31 - 1");
      }
      scan.exclusiveSum(offsets, rows, stream);
      DeviceBuffer data = backend.allocate(bytes, stream);
      DeviceColumn column = new DeviceColumn(type, rows, validity, offsets, data, bytes);
      validity = null;
      offsets = null;
      try {
        if (rows > 0) {
          stringCopy.launchGridStride(32L * rows, s, new KernelArgs().pointer(pages).pointer(slotStart)
              .pointer(rowSlot).pointer(column.offsets()).i64(rows).pointer(data));
        }
        if (pageTable.has(PageTable.Kind.DELTA_BYTE_ARRAY)) {
          deltaStrings.launchGridStride(32L * count, s, new KernelArgs().pointer(pages).pointer(table).i32(count)
              .pointer(defined).pointer(indices).pointer(slotStart).pointer(column.offsets()).pointer(data)
              .pointer(staged.status()));
        }
        pack(defined, rows, column.validity(), s);
        stream.synchronize();  // the pages and slots are freed by the caller next
        return column;
      } catch (RuntimeException e) {
        column.close();
        throw e;
      }
    } finally {
      if (validity != null) validity.close();
      if (offsets != null) offsets.close();
    }
  }

  private void pack(DeviceBuffer bytes, int rows, DeviceBuffer bitmap, CudaStream s) {
    if (rows == 0) return;
    packBits.launchGridStride(32L * ((rows + 31) / 32), s, new KernelArgs().pointer(bytes).i64(rows).pointer(bitmap));
  }

  private void upload(long[] words, HostBlock staging, DeviceBuffer table, DeviceStream stream) {
    for (int i = 0; i < words.length; i++) MemoryUtil.putLong(staging.address() + 8L * i, words[i]);
    backend.copyHostToDevice(staging.address(), table, 0, 8L * words.length, stream);
  }

  /** Throws for the first non-zero status word of {@code count} at {@code address}. */
  private static void check(String what, long address, int count) {
    for (int i = 0; i < count; i++) {
      int status = MemoryUtil.getInt(address + 4L * i);
      if (status != 0) throw new ParquetDataException(what, i, DecodeError.ofStatus(status));
    }
  }
}
