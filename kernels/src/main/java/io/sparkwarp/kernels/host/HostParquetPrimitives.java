package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.parquet.ColumnSpec;
import io.sparkwarp.kernels.parquet.CompressedBlocks;
import io.sparkwarp.kernels.parquet.DecodeError;
import io.sparkwarp.kernels.parquet.PageTable;
import io.sparkwarp.kernels.parquet.ParquetDataException;
import io.sparkwarp.kernels.parquet.ParquetPrimitives;
import io.sparkwarp.kernels.parquet.PhysicalType;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Reference {@link ParquetPrimitives}: the steps of {@code parquet.cu} as plain loops. Each page is prepared
 * (definition levels, the start of its values, dictionary indices, string slots) and checked before any value is
 * read, then each row takes its value from its page or its page's dictionary.
 */
final class HostParquetPrimitives implements ParquetPrimitives {
  private final Backend backend;

  HostParquetPrimitives(Backend backend) {
    this.backend = backend;
  }

  @Override
  public void decompress(DeviceBuffer input, DeviceBuffer output, CompressedBlocks blocks, DeviceStream stream) {
    blocks.checkRanges(input.size(), output.size());
    for (int b = 0; b < blocks.count(); b++) {
      long src = input.address() + blocks.source(b);
      long dst = output.address() + blocks.target(b);
      long srcLen = blocks.sourceBytes(b);
      long dstLen = blocks.targetBytes(b);
      DecodeError err = switch (blocks.codec(b)) {
        case SNAPPY -> HostSnappy.decompress(src, srcLen, dst, dstLen);
        case LZ4_RAW -> HostLz4.decompressRaw(src, srcLen, dst, dstLen);
        case LZ4 -> HostLz4.decompressHadoop(src, srcLen, dst, dstLen);
        case ZSTD -> HostZstd.decompress(src, srcLen, dst, dstLen);
        case UNCOMPRESSED -> {
          if (srcLen != dstLen) yield DecodeError.SIZE_MISMATCH;
          MemoryUtil.copyMemory(src, dst, dstLen);
          yield DecodeError.NONE;
        }
      };
      if (err != DecodeError.NONE) throw new ParquetDataException("compressed block", b, err);
    }
  }

  @Override
  public DeviceColumn decode(DeviceBuffer pages, PageTable table, ColumnSpec spec, DeviceStream stream) {
    table.checkRanges(pages.size());
    Prepared prepared = new Prepared(pages.address(), table, spec);
    for (int p = 0; p < table.count(); p++) {
      DecodeError err = prepared.page(p);
      if (err != DecodeError.NONE) throw new ParquetDataException("page", p, err);
    }
    int rows = Math.toIntExact(table.rowCount());
    return spec.physical() == PhysicalType.BYTE_ARRAY ? prepared.strings(rows, stream)
        : prepared.fixed(rows, stream);
  }

  /** The per-page state the kernels keep in device arrays (sw_pq_prepare's outputs). */
  private final class Prepared {
    private final long pages;
    private final PageTable table;
    private final ColumnSpec spec;
    private final byte[] defined;
    private final int[] indices;
    /**
     * Per row, the DELTA_BINARY_PACKED value of its page's k-th non-null value, or the bytes of a fixed-length
     * DELTA_BYTE_ARRAY one, byte b at bits 8b (sw_pq_prepare's deltas).
     */
    private final long[] deltas;
    private final long[] valueStart;
    private final int[] slotStart;
    private final int[] slotLength;

    Prepared(long pages, PageTable table, ColumnSpec spec) {
      this.pages = pages;
      this.table = table;
      this.spec = spec;
      int rows = Math.toIntExact(table.rowCount());
      this.defined = new byte[rows];
      this.indices = new int[rows];
      this.deltas = new long[table.needsRowWords() ? rows : 0];
      this.valueStart = new long[table.count()];
      int slots = Math.toIntExact(table.stringSlots(spec.physical()));
      this.slotStart = new int[slots];
      this.slotLength = new int[slots];
    }

    /** sw_pq_prepare for one page. */
    DecodeError page(int p) {
      long offset = table.offset(p);
      long end = offset + table.bytes(p);
      long n = table.numValues(p);
      int width = spec.width();
      PageTable.Kind kind = table.kind(p);
      if (kind == PageTable.Kind.DICTIONARY_PAGE) {
        valueStart[p] = offset;
        if (spec.physical() == PhysicalType.BYTE_ARRAY) {
          return walkStrings(offset, end, n, table.rowCount() + table.link(p));
        }
        return n * width > table.bytes(p) ? DecodeError.TRUNCATED : DecodeError.NONE;
      }
      int rowStart = (int) table.rowStart(p);
      long values = offset;
      long nonNull = n;
      if (table.maxDefinition() == 0) {
        for (int i = 0; i < n; i++) defined[rowStart + i] = 1;
        if (table.levelBytes(p) > 0) values += table.levelBytes(p);
      } else {
        long levelBytes = table.levelBytes(p);
        long levels = offset;
        if (levelBytes < 0) {
          if (table.bytes(p) < 4) return DecodeError.TRUNCATED;
          levelBytes = new HostBytes(pages, end).le(offset, 4);
          levels += 4;
          if (levels + levelBytes > end) return DecodeError.TRUNCATED;
        }
        long[] ones = new long[1];
        boolean[] bad = new boolean[1];
        DecodeError err = HostRleHybrid.decode(new HostBytes(pages + levels, levelBytes), 1, n, (i, v) -> {
          bad[0] |= v > 1;
          ones[0] += v & 1;
          defined[rowStart + (int) i] = (byte) (v & 1);
        });
        if (err != DecodeError.NONE) return err;
        if (bad[0]) return DecodeError.BAD_LEVEL;
        nonNull = ones[0];
        values = levels + levelBytes;
      }
      valueStart[p] = values;
      if (!encodingFits(kind, spec.physical(), width)) return DecodeError.BAD_ENCODING;
      if (kind == PageTable.Kind.DELTA_BINARY_PACKED) {
        return HostDeltaBinaryPacked.decode(new HostBytes(pages + values, end - values), nonNull,
            (i, v) -> deltas[rowStart + (int) i] = v);
      }
      if (kind == PageTable.Kind.DELTA_LENGTH_BYTE_ARRAY) {
        return HostDeltaByteArray.lengthPrefixed(pages, end, new long[] {values}, nonNull, slotLength, slotStart,
            rowStart);
      }
      if (kind == PageTable.Kind.DELTA_BYTE_ARRAY) {
        DecodeError err = HostDeltaByteArray.prefixed(pages, end, values, nonNull, indices, slotLength, slotStart,
            rowStart);
        if (err != DecodeError.NONE || spec.physical() != PhysicalType.FIXED_LEN_BYTE_ARRAY) return err;
        return rebuildFixed(nonNull, width, rowStart);
      }
      if (kind == PageTable.Kind.BYTE_STREAM_SPLIT) {
        if ((end - values) % width != 0) return DecodeError.SIZE_MISMATCH;
        return (end - values) / width < nonNull ? DecodeError.TRUNCATED : DecodeError.NONE;
      }
      if (kind == PageTable.Kind.PLAIN) {
        if (spec.physical() == PhysicalType.BYTE_ARRAY) return walkStrings(values, end, nonNull, rowStart);
        long need = spec.physical() == PhysicalType.BOOLEAN ? (nonNull + 7) / 8 : nonNull * width;
        return need > end - values ? DecodeError.TRUNCATED : DecodeError.NONE;
      }
      if (nonNull == 0) return DecodeError.NONE;
      HostBytes all = new HostBytes(pages, end);
      int bitWidth = 1;
      long from;
      long limit = end;
      long bound = 2;
      if (kind == PageTable.Kind.DICTIONARY_ENCODED) {
        if (values >= end) return DecodeError.TRUNCATED;
        bitWidth = all.u8(values);
        from = values + 1;
        bound = table.numValues((int) table.link(p));
      } else {
        if (values + 4 > end) return DecodeError.TRUNCATED;
        from = values + 4;
        limit = from + all.le(values, 4);
        if (limit > end) return DecodeError.TRUNCATED;
      }
      boolean[] bad = new boolean[1];
      long upper = bound;
      DecodeError err = HostRleHybrid.decode(new HostBytes(pages + from, limit - from), bitWidth, nonNull, (i, v) -> {
        bad[0] |= v >= upper;
        indices[rowStart + (int) i] = (int) v;
      });
      if (err != DecodeError.NONE) return err;
      if (bad[0]) return kind == PageTable.Kind.DICTIONARY_ENCODED ? DecodeError.BAD_INDEX : DecodeError.BAD_LEVEL;
      return DecodeError.NONE;
    }

    /** rebuild_fixed: fixed-length DELTA_BYTE_ARRAY values from their prefixes and suffixes into deltas. */
    private DecodeError rebuildFixed(long count, int width, int at) {
      for (int k = 0; k < count; k++) {
        if (slotLength[at + k] != width) return DecodeError.SIZE_MISMATCH;
      }
      long value = 0;
      for (int k = 0; k < count; k++) {
        int prefix = indices[at + k];
        for (int b = prefix; b < width; b++) {
          long fresh = MemoryUtil.getByte(pages + slotStart[at + k] + b - prefix) & 0xffL;
          value = (value & ~(0xffL << 8 * b)) | fresh << 8 * b;
        }
        deltas[at + k] = value;
      }
      return DecodeError.NONE;
    }

    private DecodeError walkStrings(long start, long end, long count, long firstSlot) {
      HostBytes all = new HostBytes(pages, end);
      long p = start;
      for (long k = 0; k < count; k++) {
        if (p + 4 > end) return DecodeError.TRUNCATED;
        long n = (int) all.le(p, 4);
        if (n < 0) return DecodeError.BAD_LENGTH;
        if (p + 4 + n > end) return DecodeError.TRUNCATED;
        slotStart[(int) (firstSlot + k)] = (int) (p + 4);
        slotLength[(int) (firstSlot + k)] = (int) n;
        p += 4 + n;
      }
      return DecodeError.NONE;
    }

    /** Calls f(row, valueIndex) for each row of data page p: its rank among the non-null rows, or -1 when null. */
    private void forEachRow(int p, RowValue f) {
      long k = 0;
      int rowStart = (int) table.rowStart(p);
      for (int i = 0; i < table.numValues(p); i++) {
        f.accept(rowStart + i, defined[rowStart + i] != 0 ? k++ : -1);
      }
    }

    DeviceColumn fixed(int rows, DeviceStream stream) {
      DeviceType type = spec.output();
      DeviceColumn column = DeviceColumn.allocate(backend, type, rows, 0, stream);
      try {
        backend.fill(column.data(), 0, column.data().size(), (byte) 0, stream);
        long data = column.data().address();
        int outWidth = type.isBitPacked() ? 0 : type.width();
        for (int p = 0; p < table.count(); p++) {
          if (table.kind(p) == PageTable.Kind.DICTIONARY_PAGE) continue;
          int page = p;
          forEachRow(p, (row, k) -> {
            if (k < 0) return;
            long v = value(page, k);
            if (outWidth == 0) {
              if (v != 0) setBit(data, row);
            } else {
              // past 8 bytes: zeros for unsigned 64-bit integers, else the sign
              long high = spec.physical() == PhysicalType.UINT64 || v >= 0 ? 0 : -1;
              for (int b = 0; b < outWidth; b++) {
                MemoryUtil.putByte(data + (long) row * outWidth + b, (byte) ((b < 8 ? v : high) >>> 8 * (b & 7)));
              }
            }
          });
        }
        writeValidity(column, rows, stream);
        return column;
      } catch (RuntimeException e) {
        column.close();
        throw e;
      }
    }

    /** The k-th non-null value of data page p as a sign-extended int64 (a double's or float's raw bits). */
    private long value(int p, long k) {
      int rowStart = (int) table.rowStart(p);
      HostBytes all = new HostBytes(pages, Long.MAX_VALUE);
      PageTable.Kind kind = table.kind(p);
      if (spec.physical() == PhysicalType.BOOLEAN) {
        if (kind == PageTable.Kind.RLE_BOOLEAN) return indices[rowStart + (int) k];
        return (all.u8(valueStart[p] + (k >>> 3)) >>> (k & 7)) & 1;
      }
      int width = spec.width();
      if (kind == PageTable.Kind.DELTA_BINARY_PACKED) {  // INT32 or INT64: their low bytes as stored
        long stored = deltas[rowStart + (int) k];
        return switch (spec.physical()) {
          case UINT32 -> stored & 0xffffffffL;
          case INT64_MILLIS -> micros(p, stored);
          default -> width == 4 ? (int) stored : stored;
        };
      }
      if (kind == PageTable.Kind.DELTA_BYTE_ARRAY) {  // fixed-length decimals, rebuilt by page()
        long v = 0;
        for (int b = 0; b < width; b++) v = (v << 8) | ((deltas[rowStart + (int) k] >>> 8 * b) & 0xff);
        return signExtend(v, width);
      }
      if (kind == PageTable.Kind.BYTE_STREAM_SPLIT) {  // byte b of every value, then byte b + 1
        long stride = (table.offset(p) + table.bytes(p) - valueStart[p]) / width;
        long v = 0;
        for (int b = 0; b < width; b++) {
          long stored = all.u8(valueStart[p] + b * stride + k);
          v = spec.physical() == PhysicalType.FIXED_LEN_BYTE_ARRAY ? (v << 8) | stored : v | stored << 8 * b;
        }
        return switch (spec.physical()) {
          case UINT32 -> v;
          case INT64_MILLIS -> micros(p, v);
          default -> signExtend(v, width);
        };
      }
      long at = kind == PageTable.Kind.DICTIONARY_ENCODED
          ? valueStart[(int) table.link(p)] + (long) indices[rowStart + (int) k] * width
          : valueStart[p] + k * width;
      switch (spec.physical()) {
        case INT96 -> {
          return PhysicalType.int96Micros(all.le(at, 8), (int) all.le(at + 8, 4));
        }
        case UINT32 -> {
          return all.le(at, 4) & 0xffffffffL;
        }
        case INT64_MILLIS -> {
          return micros(p, all.le(at, 8));
        }
        default -> { }
      }
      long v = 0;
      if (spec.physical() == PhysicalType.FIXED_LEN_BYTE_ARRAY) {
        for (int b = 0; b < width; b++) v = (v << 8) | all.u8(at + b);
      } else {
        v = all.le(at, width);
      }
      return signExtend(v, width);
    }

    /** Milliseconds as microseconds; a value past the range fails page p, as Spark's reader fails the file. */
    private long micros(int p, long millis) {
      long limit = Long.MAX_VALUE / 1000;
      if (millis > limit || millis < -limit) throw new ParquetDataException("page", p, DecodeError.OVERFLOW);
      return millis * 1000;
    }

    DeviceColumn strings(int rows, DeviceStream stream) {
      int[] rowSlot = new int[rows];
      int[] rowLength = new int[rows];
      int[] offsets = new int[rows + 1];
      long total = 0;
      for (int p = 0; p < table.count(); p++) {
        if (table.kind(p) == PageTable.Kind.DICTIONARY_PAGE) continue;
        int rowStart = (int) table.rowStart(p);
        long dictionarySlots = table.kind(p) == PageTable.Kind.DICTIONARY_ENCODED
            ? table.rowCount() + table.link((int) table.link(p)) : 0;
        PageTable.Kind kind = table.kind(p);
        forEachRow(p, (row, k) -> {
          int slot = k < 0 ? -1 : (int) (kind == PageTable.Kind.DICTIONARY_ENCODED
              ? dictionarySlots + indices[rowStart + (int) k] : rowStart + k);
          rowLength[row] = slot < 0 ? 0 : slotLength[slot];
          rowSlot[row] = kind == PageTable.Kind.DELTA_BYTE_ARRAY ? -1 : slot;  // copied by copyDeltaStrings
        });
      }
      for (int r = 0; r < rows; r++) {
        offsets[r] = (int) total;
        total += rowLength[r];
        if (total > Integer.MAX_VALUE) {
          throw new IllegalArgumentException("a string column of more than 2^31 - 1 bytes in one batch");
        }
      }
      offsets[rows] = (int) total;
      DeviceColumn column = DeviceColumn.allocate(backend, spec.output(), rows, total, stream);
      try {
        long offsetsAddress = column.offsets().address();
        for (int r = 0; r <= rows; r++) MemoryUtil.putInt(offsetsAddress + 4L * r, offsets[r]);
        for (int r = 0; r < rows; r++) {
          if (rowSlot[r] >= 0) {
            MemoryUtil.copyMemory(pages + slotStart[rowSlot[r]], column.data().address() + offsets[r],
                offsets[r + 1] - offsets[r]);
          }
        }
        for (int p = 0; p < table.count(); p++) {
          if (table.kind(p) == PageTable.Kind.DELTA_BYTE_ARRAY) copyDeltaStrings(p, offsets, column.data().address());
        }
        writeValidity(column, rows, stream);
        return column;
      } catch (RuntimeException e) {
        column.close();
        throw e;
      }
    }

    /** sw_pq_delta_strings: each value of DELTA_BYTE_ARRAY page p is its prefix of the value before, then its suffix. */
    private void copyDeltaStrings(int p, int[] offsets, long data) {
      int rowStart = (int) table.rowStart(p);
      long[] previous = {data};
      forEachRow(p, (row, k) -> {
        if (k < 0) return;
        int prefix = indices[rowStart + (int) k];
        long to = data + offsets[row];
        MemoryUtil.copyMemory(previous[0], to, prefix);
        MemoryUtil.copyMemory(pages + slotStart[rowStart + (int) k], to + prefix, offsets[row + 1] - offsets[row] - prefix);
        previous[0] = to;
      });
    }

    private void writeValidity(DeviceColumn column, int rows, DeviceStream stream) {
      long validity = column.validity().address();
      backend.fill(column.validity(), 0, column.validity().size(), (byte) 0, stream);
      for (int r = 0; r < rows; r++) {
        if (defined[r] != 0) setBit(validity, r);
      }
    }
  }

  /** parquet.cu's encoding_fits: whether a page of {@code kind} may hold values of {@code physical}. */
  private static boolean encodingFits(PageTable.Kind kind, PhysicalType physical, int width) {
    boolean integer = switch (physical) {
      case INT32, UINT32, INT64, INT64_MILLIS, UINT64 -> true;
      default -> false;
    };
    boolean smallFixed = physical == PhysicalType.FIXED_LEN_BYTE_ARRAY && width >= 1 && width <= 8;
    return switch (kind) {
      case DELTA_BINARY_PACKED -> integer;
      case DELTA_LENGTH_BYTE_ARRAY -> physical == PhysicalType.BYTE_ARRAY;
      case DELTA_BYTE_ARRAY -> physical == PhysicalType.BYTE_ARRAY || smallFixed;
      case BYTE_STREAM_SPLIT -> integer || physical == PhysicalType.FLOAT || physical == PhysicalType.DOUBLE
          || smallFixed;
      default -> true;
    };
  }

  /** The low {@code width} bytes of v, sign-extended. */
  private static long signExtend(long v, int width) {
    int shift = 64 - 8 * width;
    return (v << shift) >> shift;
  }

  private static void setBit(long bitmap, long bit) {
    long at = bitmap + (bit >>> 3);
    MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | (1 << (bit & 7))));
  }

  /** A row and its value index (-1 for null). */
  private interface RowValue {
    void accept(int row, long valueIndex);
  }
}
