package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.MatchResult;
import io.sparkwarp.kernels.strings.PivotedStrings;
import io.sparkwarp.kernels.strings.StringArguments;
import io.sparkwarp.kernels.strings.StringLayout;
import io.sparkwarp.kernels.strings.StringMatcher;
import io.sparkwarp.kernels.strings.StringPrimitives;
import java.util.Locale;
import jcuda.driver.CUdevice_attribute;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * {@link StringPrimitives} as launches of {@code strings.cu}, with the piece-count scan of {@code scan.cu}; substrings
 * are {@link CudaSubstring}'s.
 *
 * <p>pivot: the pieces of each 32-row group (PIVOTED) or of each row's segments (SELF_PIVOTED), their exclusive scan
 * (piece counts fit an int32 because each is at most its strings' bytes), the starts (piece offsets times 256, as
 * int64: padding can take the data past 2^31 bytes), one read-back of the total to size the data, and one kernel
 * writing every byte of it, padding included.
 *
 * <p>match: the matcher program staged in pinned memory and uploaded on the stream, the output's validity copied
 * from the input and its values zeroed, one launch, and one read-back of the lane counters, the only
 * synchronisation. Launch shape: 256-thread blocks, as many as the work needs up to one resident wave (the occupancy
 * the kernel's registers and the program's shared memory allow): every kernel loops over its work, so a block copies
 * the program into shared memory once. Refill kernels take rows from a grid-wide queue in chunks sized for about four
 * per resident warp, which balances warps with few queue atomics.
 *
 * <p>On the plain layout a segment matcher without anchors runs the contains scan ({@link LiteralScan}) first: its
 * answer for one segment, otherwise the rows it kept stand in for the validity the lane matcher reads, so rejected
 * rows cost that matcher no bytes. The scan's lane counters are reported when it decides; its Lane Refill (a queue
 * of the filter's candidates) is always on.
 */
final class CudaStringPrimitives implements StringPrimitives {
  /** Threads per block of the match kernels (STRINGS_BLOCK in strings.cu). */
  static final int BLOCK = 256;
  private static final int WARPS_PER_BLOCK = BLOCK / 32;
  /**
   * The kernels' counters: the lane matcher's active lanes, warp iterations and refill queue cursor, then the
   * contains scan's words scanned and word slots / 32, at {@link #SCAN_COUNTERS}.
   */
  private static final int COUNTER_BYTES = 40;
  private static final int SCAN_COUNTERS = 24;
  private static final int CHUNKS_PER_WARP = 4;

  private final CudaBackend backend;
  private final CudaModule module;
  private final CudaScan scan;
  private final CudaKernel groupPieces;
  private final CudaKernel segmentPieces;
  private final CudaKernel pieceStarts;
  private final CudaKernel pivot;
  private final CudaKernel selfPivot;
  private final CudaKernel containsScan;
  private final CudaSubstring substring;
  private final int maxSharedBytes;

  CudaStringPrimitives(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    this.module = module;
    this.scan = new CudaScan(backend, module);
    groupPieces = module.kernel("sw_strings_group_pieces");
    segmentPieces = module.kernel("sw_strings_segment_pieces");
    pieceStarts = module.kernel("sw_strings_piece_starts");
    pivot = module.kernel("sw_strings_pivot");
    selfPivot = module.kernel("sw_strings_self_pivot");
    containsScan = module.kernel("sw_strings_contains_scan");
    substring = new CudaSubstring(backend, module, scan);
    maxSharedBytes = backend.context().deviceAttribute(
        CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  }

  @Override
  public PivotedStrings pivot(DeviceColumn strings, StringLayout layout, DeviceStream stream) {
    StringArguments.checkPivot(strings, layout);
    int rows = strings.rowCount();
    boolean grouped = layout == StringLayout.PIVOTED;
    long units = grouped ? (rows + 31) / 32 : rows;  // what has a start: groups or rows
    CudaStream s = CudaStream.of(stream);
    DeviceBuffer starts = null;
    DeviceBuffer data = null;
    try (DeviceBuffer pieces = backend.allocate(4 * (units + 1), stream);
        HostBlock total = backend.transferMemory().pool().allocate(8)) {
      try {
        KernelArgs countArgs = new KernelArgs().pointer(strings.offsets()).i64(rows).pointer(pieces);
        if (grouped && units > 0) groupPieces.launchGridStride(32 * units, s, countArgs);
        if (!grouped && units > 0) segmentPieces.launchGridStride(units, s, countArgs);
        scan.exclusiveSum(pieces, units, stream);
        starts = backend.allocate(8 * (units + 1), stream);
        pieceStarts.launchGridStride(units + 1, s, new KernelArgs().pointer(pieces).i64(units).pointer(starts));
        backend.copyDeviceToHost(pieces, 4 * units, total.address(), 4, stream);
      } finally {
        stream.synchronize();  // the total is read next, and the pinned block must be idle before it is reused
      }
      long dataBytes = 256L * MemoryUtil.getInt(total.address());
      data = backend.allocate(dataBytes, stream);
      if (dataBytes > 0) {
        (grouped ? pivot : selfPivot).launchGridStride(32 * units, s, new KernelArgs().pointer(strings.offsets())
            .pointer(strings.data()).i64(rows).pointer(starts).pointer(data));
      }
      return new PivotedStrings(layout, rows, starts, data, dataBytes);
    } catch (RuntimeException e) {
      if (starts != null) starts.close();
      if (data != null) data.close();
      throw e;
    }
  }

  @Override
  public MatchResult match(DeviceColumn strings, PivotedStrings pivoted, StringMatcher matcher, boolean refill,
      DeviceStream stream) {
    StringArguments.checkMatch(strings, pivoted, matcher);
    StringLayout layout = pivoted == null ? StringLayout.PLAIN : pivoted.layout();
    LiteralScan scan = layout == StringLayout.PLAIN ? LiteralScan.of(matcher) : null;
    boolean scanDecides = scan != null && scan.decides();
    byte[] program = scanDecides ? new byte[0] : MatcherProgram.encode(matcher);
    if (program.length > maxSharedBytes) {
      throw new IllegalArgumentException(matcher.describe() + " needs " + program.length + " bytes of tables in "
          + "shared memory, more than the " + maxSharedBytes + " a block gets on " + backend.description());
    }
    byte[] literal = scan == null ? new byte[0] : scan.literalBytes();
    int staged = program.length + literal.length;  // the program, then the scan's literal
    int rows = strings.rowCount();
    long bitmapBytes = (rows + 7) / 8;
    DeviceColumn out = DeviceColumn.allocate(backend, DeviceType.BOOLEAN, rows, 0, stream);
    try (HostBlock host = backend.transferMemory().pool().allocate(staged + COUNTER_BYTES);
        DeviceBuffer programBuffer = backend.allocate(Math.max(16, staged), stream);
        DeviceBuffer counters = backend.allocate(COUNTER_BYTES, stream);
        // the rows the scan kept, for the lane matcher that follows it
        DeviceBuffer kept = scan != null && !scanDecides ? backend.allocate(4L * ((rows + 31) / 32 + 1), stream)
            : null) {
      long readBack = host.address() + staged;
      try {
        backend.copyDeviceToDevice(strings.validity(), 0, out.validity(), 0, bitmapBytes, stream);
        if (!scanDecides) backend.fill(out.data(), 0, bitmapBytes, (byte) 0, stream);  // the scan writes every word
        backend.fill(counters, 0, COUNTER_BYTES, (byte) 0, stream);
        MemoryUtil.copyToMemory(program, 0, host.address(), program.length);
        MemoryUtil.copyToMemory(literal, 0, host.address() + program.length, literal.length);
        if (staged > 0) backend.copyHostToDevice(host.address(), programBuffer, 0, staged, stream);
        if (rows > 0 && scan != null) {
          launchScan(strings, scan, programBuffer, program.length, scanDecides ? out.data() : kept, counters, stream);
        }
        if (rows > 0 && !scanDecides) {
          launch(kernel(layout, matcher, refill), strings, kept == null ? strings.validity() : kept, pivoted,
              programBuffer, program.length, out, counters, stream);
        }
        backend.copyDeviceToHost(counters, scanDecides ? SCAN_COUNTERS : 0, readBack, 16, stream);
      } finally {
        stream.synchronize();  // the pinned block must be idle before it is reused
      }
      return new MatchResult(out, layout, scanDecides || refill, MemoryUtil.getLong(readBack),
          MemoryUtil.getLong(readBack + 8));
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  @Override
  public DeviceColumn substring(DeviceColumn strings, int pos, int len, DeviceStream stream) {
    return substring.substring(strings, pos, len, stream);
  }

  /**
   * The contains scan into {@code bits} (whole words written), its lane counters at {@link #SCAN_COUNTERS}: one
   * resident wave of 256-thread blocks at most, each warp taking tiles of {@link LiteralScan#tileRows} rows.
   */
  private void launchScan(DeviceColumn strings, LiteralScan scan, DeviceBuffer staged, int literalAt,
      DeviceBuffer bits, DeviceBuffer counters, DeviceStream stream) {
    int shared = WARPS_PER_BLOCK * LiteralScan.SCRATCH_BYTES_PER_WARP;
    containsScan.allowSharedMemory(shared);
    int rows = strings.rowCount();
    int tileRows = LiteralScan.tileRows(rows, strings.dataBytes());
    long tiles = (rows + tileRows - 1) / tileRows;
    int blocks = blocks(residentBlocks(containsScan, shared), tiles);
    containsScan.launch(blocks, BLOCK, shared, CudaStream.of(stream), new KernelArgs()
        .pointer(strings.validity()).pointer(strings.offsets()).pointer(strings.data()).i64(rows)
        .pointer(staged, literalAt).struct(scan.filter()).i32(tileRows).pointer(bits)
        .pointer(counters, SCAN_COUNTERS));
  }

  /** Blocks of {@link #BLOCK} threads the device holds at once with {@code sharedBytes} of dynamic shared memory. */
  private long residentBlocks(CudaKernel kernel, int sharedBytes) {
    return (long) Math.max(1, kernel.residentBlocksPerSm(BLOCK, sharedBytes))
        * backend.context().device().multiprocessors();
  }

  /** Blocks for {@code warpsOfWork} warp-sized units of work: as many as it needs, one resident wave at most. */
  private static int blocks(long residentBlocks, long warpsOfWork) {
    return (int) Math.max(1, Math.min(residentBlocks, (warpsOfWork + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK));
  }

  private CudaKernel kernel(StringLayout layout, StringMatcher matcher, boolean refill) {
    return module.kernel("sw_strings_match_" + layout.name().toLowerCase(Locale.ROOT)
        + (matcher instanceof DfaMatcher ? "_dfa" : "_segments") + (refill ? "_refill" : ""));
  }

  private void launch(CudaKernel kernel, DeviceColumn strings, DeviceBuffer validity, PivotedStrings pivoted,
      DeviceBuffer program, int programBytes, DeviceColumn out, DeviceBuffer counters, DeviceStream stream) {
    kernel.allowSharedMemory(programBytes);
    int rows = strings.rowCount();
    boolean warpPerRow = pivoted != null && pivoted.layout() == StringLayout.SELF_PIVOTED;
    long residentBlocks = residentBlocks(kernel, programBytes);
    int blocks = blocks(residentBlocks, warpPerRow ? rows : (rows + 31) / 32);
    long perWarp = rows / (CHUNKS_PER_WARP * residentBlocks * WARPS_PER_BLOCK);
    int chunk = warpPerRow ? (int) Math.max(1, Math.min(8, perWarp))
        : (int) Math.max(32, Math.min(1024, (perWarp + 31) / 32 * 32));
    kernel.launch(blocks, BLOCK, programBytes, CudaStream.of(stream), new KernelArgs()
        .pointer(validity).pointer(strings.offsets()).pointer(strings.data())
        .address(pivoted == null ? 0 : pivoted.starts().address())
        .address(pivoted == null ? 0 : pivoted.data().address())
        .i64(rows).pointer(program).i32(programBytes).i32(chunk).pointer(out.data()).pointer(counters));
  }
}
