package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.Closeables;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * {@link ParquetPrimitives} as launches of {@code parquet.cu}, a warp per block or page (a block per page to decode
 * its values). A batch stages every table in pinned memory and uploads them at once, launches the decompression and
 * each column's decoding, and reads every status word (and each string column's byte total, to size its data) back
 * in its one wait; the strings' lengths then become offsets ({@code scan.cu}) and their bytes are copied.
 * Decompressing or decoding alone is a batch of one.
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
    decodeBatch(input, output, blocks, List.of(), List.of(), stream);
  }

  @Override
  public DeviceColumn decode(DeviceBuffer pages, PageTable table, ColumnSpec spec, DeviceStream stream) {
    try {
      return decodeBatch(null, pages, new CompressedBlocks(), List.of(table), List.of(spec), stream).get(0);
    } catch (ParquetDataException e) {
      throw new ParquetDataException("page", e.index(), e.error());  // a column decoded alone: no column index
    }
  }

  /**
   * One upload of every table, the decompression and each column's decoding up to its string sizes launched, one
   * download of every status word and string size and the only wait; then the strings' offsets and bytes. Each
   * column's scratch arrays are one allocation, freed in stream order once its kernels are launched.
   */
  @Override
  public List<DeviceColumn> decodeBatch(DeviceBuffer input, DeviceBuffer pages, CompressedBlocks blocks,
      List<PageTable> tables, List<ColumnSpec> specs, DeviceStream stream) {
    if (tables.size() != specs.size()) {
      throw new IllegalArgumentException(tables.size() + " page tables for " + specs.size() + " columns");
    }
    if (blocks.count() == 0 && tables.isEmpty()) return List.of();
    if (blocks.count() > 0) blocks.checkRanges(input.size(), pages.size());
    for (PageTable table : tables) table.checkRanges(pages.size());
    int shared = RING_BYTES * (CudaKernel.BLOCK / 32);
    long[] firstSlots = blocks.count() == 0 ? null : SnappyFragments.firstSlots(blocks, snappyWarps(shared));
    ParquetStaging staged = new ParquetStaging(blocks, firstSlots, tables);
    List<InFlight> columns = new ArrayList<>();
    try (HostBlock host = backend.transferMemory().pool().allocate(staged.bytes());
        DeviceBuffer device = backend.allocate(staged.bytes(), stream)) {
      try {
        staged.write(host.address());
        backend.copyHostToDevice(host.address(), device, 0, staged.bytes(), stream);
        CudaStream s = CudaStream.of(stream);
        if (blocks.count() > 0) launchDecompress(input, pages, blocks, firstSlots, device, staged, shared, s, stream);
        for (int c = 0; c < tables.size(); c++) {
          columns.add(launchDecode(pages, tables.get(c), specs.get(c), device.address(), staged.column(c), s,
              stream));
        }
        long statuses = staged.statuses();
        backend.copyDeviceToHost(device, statuses, host.address() + statuses, staged.bytes() - statuses, stream);
        stream.synchronize();
        check("compressed block", -1, host.address() + staged.blockStatus(), blocks.count());
        for (int c = 0; c < tables.size(); c++) {
          check("page", c, host.address() + staged.column(c).status(), tables.get(c).count());
        }
        for (int c = 0; c < tables.size(); c++) {
          if (!columns.get(c).strings) continue;
          ParquetStaging.Column at = staged.column(c);
          finishStrings(pages, tables.get(c), columns.get(c), MemoryUtil.getLong(host.address() + at.total()),
              device.address() + at.table(), device.address() + at.status(), s, stream);
        }
        return columns.stream().map(InFlight::take).toList();
      } catch (RuntimeException e) {
        // the pinned block goes back to the pool next: no copy may still read or write it (a batch the device has
        // no room for is retried in halves)
        try {
          stream.synchronize();
        } catch (RuntimeException again) {
          e.addSuppressed(again);
        }
        throw e;
      } finally {
        Closeables.closeAll(columns);
      }
    }
  }

  private void launchDecompress(DeviceBuffer input, DeviceBuffer output, CompressedBlocks blocks, long[] firstSlots,
      DeviceBuffer device, ParquetStaging staged, int shared, CudaStream s, DeviceStream stream) {
    int count = blocks.count();
    long table = device.address() + staged.blockTable();
    long status = device.address() + staged.blockStatus();
    long slots = firstSlots == null ? 0 : firstSlots[count];
    try (DeviceBuffer slotSource = backend.allocate(8L * slots, stream)) {  // freed in stream order
      long firstSlot = firstSlots == null ? 0 : device.address() + staged.firstSlots();
      if (firstSlots != null) {  // Snappy blocks of several fragments: split (a block each), then a warp a fragment
        snappySplit.launchGridStride((long) CudaKernel.BLOCK * count, s, new KernelArgs().pointer(input)
            .address(table).i32(count).address(firstSlot).pointer(slotSource).address(status));
        snappyFragments.launchGridStride(32L * slots, shared, s, new KernelArgs().pointer(input).pointer(output)
            .address(table).i32(count).address(firstSlot).pointer(slotSource).i32(RING_BYTES).address(status));
      }
      // a kernel per codec family, each decoding its own blocks; the LZ4 and ZSTD ones only for blocks of theirs
      Set<CompressedBlocks.Codec> codecs = blocks.codecs();
      if (codecs.contains(CompressedBlocks.Codec.SNAPPY) || codecs.contains(CompressedBlocks.Codec.UNCOMPRESSED)) {
        decompress.launchGridStride(32L * count, shared, s, new KernelArgs().pointer(input).pointer(output)
            .address(table).i32(count).i32(RING_BYTES).address(firstSlot).address(status));
      }
      KernelArgs args = new KernelArgs().pointer(input).pointer(output).address(table).i32(count).i32(RING_BYTES)
          .address(status);
      if (codecs.contains(CompressedBlocks.Codec.LZ4) || codecs.contains(CompressedBlocks.Codec.LZ4_RAW)) {
        decompressLz4.launchGridStride(32L * count, shared, s, args);
      }
      if (codecs.contains(CompressedBlocks.Codec.ZSTD)) {
        decompressZstd.launchGridStride(32L * count, ZSTD_SHARED, s, args);
      }
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

  /**
   * Launches a column's decoding up to what needs no size from the host: a fixed-width column whole, a string
   * column up to its lengths and byte total.
   */
  private InFlight launchDecode(DeviceBuffer pages, PageTable table, ColumnSpec spec, long staged,
      ParquetStaging.Column at, CudaStream s, DeviceStream stream) {
    int rows = Math.toIntExact(table.rowCount());
    int count = table.count();
    boolean strings = spec.physical() == PhysicalType.BYTE_ARRAY;
    DecodeScratch scratch = new DecodeScratch(table, spec, strings);
    InFlight column = new InFlight(spec.output(), strings);
    try {
      column.scratch = backend.allocate(scratch.bytes(), stream);
      long base = column.scratch.address();
      long tableAddress = staged + at.table();
      long status = staged + at.status();
      prepare.launchGridStride(32L * Math.max(1, count), s, new KernelArgs().pointer(pages).address(tableAddress)
          .i32(count).i32(spec.physical().ordinal()).i32(spec.typeLength()).address(base + scratch.defined)
          .address(base + scratch.indices).address(base + scratch.deltas).address(base + scratch.valueStart)
          .address(base + scratch.slotStart).address(base + scratch.slotLength).i64(rows).address(status));
      column.layout = scratch;
      if (strings) {
        column.validity = backend.allocate((rows + 7) / 8, stream);
        column.offsets = backend.allocate(4L * (rows + 1), stream);
        stringLengths.launchGridStride((long) CudaKernel.BLOCK * Math.max(1, count), s, new KernelArgs()
            .address(tableAddress).i32(count).address(base + scratch.defined).address(base + scratch.indices)
            .address(base + scratch.slotLength).i64(rows).pointer(column.offsets).address(base + scratch.rowSlot)
            .address(staged + at.total()).address(status));
        return column;
      }
      DeviceType type = spec.output();
      column.done = DeviceColumn.allocate(backend, type, rows, 0, stream);
      boolean bits = type.isBitPacked();
      long out = bits ? base + scratch.bits : column.done.data().address();
      decodeFixed.launchGridStride((long) CudaKernel.BLOCK * Math.max(1, count), s, new KernelArgs().pointer(pages)
          .address(tableAddress).i32(count).i32(spec.physical().ordinal()).i32(spec.typeLength())
          .address(base + scratch.defined).address(base + scratch.indices).address(base + scratch.deltas)
          .address(base + scratch.valueStart).address(out).i32(bits ? 1 : type.width()).address(status));
      if (bits) pack(base + scratch.bits, rows, column.done.data(), s);
      pack(base + scratch.defined, rows, column.done.validity(), s);
      column.scratch.close();  // in stream order, after the launches above
      column.scratch = null;
      return column;
    } catch (RuntimeException e) {
      column.close();
      throw e;
    }
  }

  /** A string column after the wait: its offsets from its lengths, its bytes copied from the pages. */
  private void finishStrings(DeviceBuffer pages, PageTable table, InFlight column, long bytes, long tableAddress,
      long status, CudaStream s, DeviceStream stream) {
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a string column of " + bytes + " bytes in one batch is past 2^31 - 1");
    }
    int rows = Math.toIntExact(table.rowCount());
    DecodeScratch scratch = column.layout;
    long base = column.scratch.address();
    scan.exclusiveSum(column.offsets, rows, stream);
    DeviceBuffer data = backend.allocate(bytes, stream);
    column.done = new DeviceColumn(column.type, rows, column.validity, column.offsets, data, bytes);
    column.validity = null;
    column.offsets = null;
    if (rows > 0) {
      stringCopy.launchGridStride(32L * rows, s, new KernelArgs().pointer(pages).address(base + scratch.slotStart)
          .address(base + scratch.rowSlot).pointer(column.done.offsets()).i64(rows).pointer(data));
    }
    if (table.has(PageTable.Kind.DELTA_BYTE_ARRAY)) {
      deltaStrings.launchGridStride(32L * table.count(), s, new KernelArgs().pointer(pages).address(tableAddress)
          .i32(table.count()).address(base + scratch.defined).address(base + scratch.indices)
          .address(base + scratch.slotStart).pointer(column.done.offsets()).pointer(data)
          .address(status));
    }
    pack(base + scratch.defined, rows, column.done.validity(), s);
  }

  /**
   * A column between its launches and the wait: a fixed-width one complete ({@code done}), a string one holding its
   * scratch, validity and lengths until its byte total is known. Closing frees what was not taken.
   */
  private static final class InFlight implements AutoCloseable {
    final DeviceType type;
    final boolean strings;
    DecodeScratch layout;
    DeviceBuffer scratch;
    DeviceBuffer validity;
    DeviceBuffer offsets;
    DeviceColumn done;

    InFlight(DeviceType type, boolean strings) {
      this.type = type;
      this.strings = strings;
    }

    /** The finished column, now the caller's. */
    DeviceColumn take() {
      DeviceColumn column = done;
      done = null;
      return column;
    }

    @Override
    public void close() {
      Closeables.closeAll(Arrays.asList(scratch, validity, offsets, done));
    }
  }

  private void pack(long bytes, int rows, DeviceBuffer bitmap, CudaStream s) {
    if (rows == 0) return;
    packBits.launchGridStride(32L * ((rows + 31) / 32), s, new KernelArgs().address(bytes).i64(rows).pointer(bitmap));
  }

  /** Throws for the first non-zero status word of {@code count} at {@code address}. */
  private static void check(String what, int column, long address, int count) {
    for (int i = 0; i < count; i++) {
      int status = MemoryUtil.getInt(address + 4L * i);
      if (status != 0) throw new ParquetDataException(what, column, i, DecodeError.ofStatus(status));
    }
  }
}
