package io.sparkwarp.parquet;

import io.sparkwarp.kernels.parquet.PageTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Walks the page headers of one column chunk in host memory (parquet-format's Thrift reader) and turns each page into
 * blocks to decompress and an entry of the column's page table: a dictionary page, a data page v1 (one block: its
 * levels and values are compressed together) or v2 (its levels stored as they are, its values compressed apart).
 * Data pages without a row the column indexes kept are left out. Page checksums, when the writer stored them, are
 * verified here on the compressed bytes where the chunk asks for it (parquet-mr's
 * {@code parquet.page.verify-checksum.enabled}, off by default, so Spark's reader skips them too: at SF10 they were
 * two thirds of the CPU time of walking a batch's headers).
 */
final class PageHeaders {
  private PageHeaders() {}

  /**
   * Where a chunk lies (in host memory, and in the batch's upload) and what it holds; {@code onDevice}: whether the
   * device decompresses its pages, else the reader thread inflates them; {@code kept}: the rows of its row group to
   * read (null: all); {@code verifyChecksums}: whether the pages' checksums are checked.
   */
  record Chunk(BatchTables.Owner owner, long address, long uploadOffset, long length, CompressionCodecName codec,
      boolean onDevice, PrimitiveType.PrimitiveTypeName type, long valueCount, RowRanges kept,
      boolean verifyChecksums) {
    /** Whether the data page of rows [first, first + rows) of the row group holds a kept row. */
    boolean keeps(long first, long rows) {
      return kept == null || kept.isOverlapping(first, first + rows - 1);
    }

    boolean bool() {
      return type == PrimitiveType.PrimitiveTypeName.BOOLEAN;
    }
  }

  /**
   * Where one column chunk's walk is: the rows of its row group before the next page, and its dictionary page's index
   * in the column's table (-1: none yet). A chunk read page by page keeps its walk from page to page.
   */
  static final class Walk {
    private long values;
    private int dictionary = -1;
  }

  /**
   * Adds the pages of {@code chunk} to {@code out}.
   *
   * @throws CorruptChunkException when a header, a size or a checksum is wrong
   * @throws UnsupportedParquetException for a page encoding the device does not decode
   */
  static void parse(Chunk chunk, BatchTables out) {
    ByteBuffer bytes = bytes(chunk);
    Walk walk = new Walk();
    long pos = 0;
    while (walk.values < chunk.valueCount()) {
      if (pos >= chunk.length()) throw new CorruptChunkException("the column chunk ends before its values");
      pos = page(chunk, bytes, pos, walk, out);
    }
  }

  /**
   * Adds the one page {@code page} holds to {@code out}: a page of a chunk read page by page (its offset index saying
   * where each page lies), the first of rows {@code firstRow} of its row group (-1: the dictionary page).
   *
   * @throws CorruptChunkException as {@link #parse}, and when the page does not fill its region
   */
  static void parsePage(Chunk page, long firstRow, Walk walk, BatchTables out) {
    if (firstRow >= 0) walk.values = firstRow;
    if (page(page, bytes(page), 0, walk, out) != page.length()) {
      throw new CorruptChunkException("a page's size differs from its offset index");
    }
  }

  private static ByteBuffer bytes(Chunk chunk) {
    if (chunk.length() > Integer.MAX_VALUE) throw new CorruptChunkException("a column chunk past 2 GiB");
    return MemoryUtil.directBuffer(chunk.address(), (int) chunk.length());
  }

  /** Adds the page whose header is at {@code pos} of {@code chunk}; returns where the next page starts. */
  private static long page(Chunk chunk, ByteBuffer bytes, long pos, Walk walk, BatchTables out) {
    PageTable table = out.tables[chunk.owner().column()];
    ByteBufferInputStream in = ByteBufferInputStream.wrap(bytes.duplicate().position((int) pos));
    PageHeader h;
    try {
      h = Util.readPageHeader(in);
    } catch (IOException | RuntimeException e) {
      throw new CorruptChunkException("an unreadable page header (" + e.getMessage() + ")");
    }
    long data = pos + in.position();
    long stored = h.getCompressed_page_size();
    long size = h.getUncompressed_page_size();
    if (stored < 0 || size < 0 || data + stored > chunk.length()) {
      throw new CorruptChunkException("a page of " + stored + " bytes past the end of its column chunk");
    }
    if (chunk.verifyChecksums() && h.isSetCrc()) verify(bytes, data, stored, h.getCrc());
    switch (h.getType()) {
      case DICTIONARY_PAGE -> {
        DictionaryPageHeader d = h.getDictionary_page_header();
        if (d.getEncoding() != Encoding.PLAIN && d.getEncoding() != Encoding.PLAIN_DICTIONARY) {
          throw new UnsupportedParquetException("dictionary encoding " + d.getEncoding());
        }
        if (chunk.bool()) throw new UnsupportedParquetException("a dictionary of booleans");
        long target = out.reservePages(size);
        addPage(out, chunk, data, stored, target, size, true);
        walk.dictionary = table.addDictionary(target, size, Math.max(0, d.getNum_values()));
        out.pageAdded(chunk.owner());
      }
      case DATA_PAGE -> {
        DataPageHeader d = h.getData_page_header();
        if (table.maxDefinition() > 0 && d.getDefinition_level_encoding() != Encoding.RLE) {
          throw new UnsupportedParquetException("definition level encoding " + d.getDefinition_level_encoding());
        }
        long n = checkedValues(d.getNum_values(), walk.values, chunk);
        if (chunk.keeps(walk.values, n)) {
          long target = out.reservePages(size);
          addPage(out, chunk, data, stored, target, size, true);
          PageTable.Kind kind = kind(d.getEncoding(), chunk.type(), walk.dictionary);
          out.keepRows(chunk.owner().column(), walk.values, n, chunk.kept());
          int dictionary = kind == PageTable.Kind.DICTIONARY_ENCODED ? walk.dictionary : -1;
          table.addData(target, size, -1, n, kind, dictionary);
          out.pageAdded(chunk.owner());
        } else {
          out.pageSkipped();
        }
        walk.values += n;
      }
      case DATA_PAGE_V2 -> {
        DataPageHeaderV2 d = h.getData_page_header_v2();
        long levels = d.getDefinition_levels_byte_length();
        if (d.getRepetition_levels_byte_length() != 0) {
          throw new CorruptChunkException("repetition levels in a flat column");
        }
        if (levels < 0 || levels > stored || levels > size) {
          throw new CorruptChunkException("definition levels longer than their page");
        }
        long n = checkedValues(d.getNum_values(), walk.values, chunk);
        if (chunk.keeps(walk.values, n)) {
          boolean compressed = !d.isSetIs_compressed() || d.isIs_compressed();
          long target = out.reservePages(size);
          addPage(out, chunk, data, levels, target, levels, false);
          addPage(out, chunk, data + levels, stored - levels, target + levels, size - levels, compressed);
          PageTable.Kind kind = kind(d.getEncoding(), chunk.type(), walk.dictionary);
          out.keepRows(chunk.owner().column(), walk.values, n, chunk.kept());
          int dictionary = kind == PageTable.Kind.DICTIONARY_ENCODED ? walk.dictionary : -1;
          table.addData(target, size, levels, n, kind, dictionary);
          out.pageAdded(chunk.owner());
        } else {
          out.pageSkipped();
        }
        walk.values += n;
      }
      default -> {}  // index pages carry nothing the scan needs
    }
    return data + stored;
  }

  /**
   * The block that puts {@code stored} bytes at {@code data} of the chunk, {@code size} once decompressed, at
   * {@code target} of the pages buffer: decompressed by the device ({@link DeviceCodecs}), copied (uncompressed), or
   * inflated by the reader thread first (host codecs).
   */
  private static void addPage(BatchTables out, Chunk chunk, long data, long stored, long target, long size,
      boolean compressed) {
    CompressionCodecName codec = compressed ? chunk.codec() : CompressionCodecName.UNCOMPRESSED;
    // the device skips ZSTD's content checksums: a page with one is inflated, and checked, by the reader thread
    if (codec == CompressionCodecName.UNCOMPRESSED || chunk.onDevice()
        && !(codec == CompressionCodecName.ZSTD && ZstdChecksums.present(chunk.address() + data, stored))) {
      out.addBlock(chunk.owner(), chunk.uploadOffset() + data, stored, target, size, DeviceCodecs.blockCodec(codec));
    } else {
      out.addInflatedBlock(chunk.owner(), codec, chunk.address() + data, stored, target, size);
    }
  }

  private static long checkedValues(int n, long before, Chunk chunk) {
    if (n < 0 || before + n > chunk.valueCount()) {
      throw new CorruptChunkException("pages hold more values than the column chunk");
    }
    return n;
  }

  private static PageTable.Kind kind(Encoding e, PrimitiveType.PrimitiveTypeName type, int dictionary) {
    PageTable.Kind kind = switch (e) {
      case PLAIN -> PageTable.Kind.PLAIN;
      case PLAIN_DICTIONARY, RLE_DICTIONARY -> {
        if (dictionary < 0) throw new CorruptChunkException("a dictionary-encoded page without a dictionary");
        yield PageTable.Kind.DICTIONARY_ENCODED;
      }
      case RLE -> PageTable.Kind.RLE_BOOLEAN;
      case DELTA_BINARY_PACKED -> PageTable.Kind.DELTA_BINARY_PACKED;
      case DELTA_LENGTH_BYTE_ARRAY -> PageTable.Kind.DELTA_LENGTH_BYTE_ARRAY;
      case DELTA_BYTE_ARRAY -> PageTable.Kind.DELTA_BYTE_ARRAY;
      case BYTE_STREAM_SPLIT -> PageTable.Kind.BYTE_STREAM_SPLIT;
      default -> throw new UnsupportedParquetException("page encoding " + e + " is not decoded on the GPU");
    };
    boolean everyType = kind == PageTable.Kind.PLAIN || kind == PageTable.Kind.DICTIONARY_ENCODED;
    if (!everyType && !ScanSupport.valueEncodings(type).contains(org.apache.parquet.column.Encoding.valueOf(e.name()))) {
      throw new UnsupportedParquetException(e + " encoding of " + type + " values is not decoded on the GPU");
    }
    return kind;
  }

  private static void verify(ByteBuffer bytes, long data, long stored, int expected) {
    CRC32 crc = new CRC32();
    crc.update(bytes.duplicate().position((int) data).limit((int) (data + stored)));
    if ((int) crc.getValue() != expected) throw new CorruptChunkException("a page checksum does not match");
  }
}
