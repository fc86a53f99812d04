package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Parquet pages on the device: decompression of many compressed pages at once, and decoding of one column's pages
 * into an Arrow-layout {@link DeviceColumn}, or both for every column of a batch. Corrupt input never reads or writes
 * out of bounds: it raises a {@link ParquetDataException} naming the block or page. CUDA: {@code parquet.cu}.
 */
public interface ParquetPrimitives {
  /**
   * Decompresses (or copies) every block of {@code blocks} from {@code input} into {@code output}, all blocks at
   * once, and waits for it.
   *
   * @throws ParquetDataException naming the first corrupt block
   * @throws IllegalArgumentException when a block lies outside the buffers
   */
  void decompress(DeviceBuffer input, DeviceBuffer output, CompressedBlocks blocks, DeviceStream stream);

  /**
   * Decodes the pages of {@code table}, which lie in {@code pages}, into a new column of {@code table.rowCount()}
   * rows of {@code spec.output()}: nulls where a definition level is 0 (their values zeroed, strings empty).
   * The pages buffer is only read, and may be closed once the stream is synchronised.
   *
   * @throws ParquetDataException naming the first corrupt page
   */
  DeviceColumn decode(DeviceBuffer pages, PageTable table, ColumnSpec spec, DeviceStream stream);

  /**
   * One batch: {@link #decompress} of {@code blocks} into {@code pages}, then {@link #decode} of each table with its
   * spec, with their results and their first error (a block's, else the first corrupt column's, whose index
   * {@link ParquetDataException#column} gives). Implementations wait for the device as few times as the sizes they
   * must know allow (CUDA: once for every status and string size, however many columns); the caller synchronises
   * the stream before closing {@code input} or {@code pages}.
   */
  default List<DeviceColumn> decodeBatch(DeviceBuffer input, DeviceBuffer pages, CompressedBlocks blocks,
      List<PageTable> tables, List<ColumnSpec> specs, DeviceStream stream) {
    if (tables.size() != specs.size()) {
      throw new IllegalArgumentException(tables.size() + " page tables for " + specs.size() + " columns");
    }
    if (blocks.count() > 0) decompress(input, pages, blocks, stream);
    List<DeviceColumn> out = new ArrayList<>();
    try {
      for (int c = 0; c < tables.size(); c++) {
        try {
          out.add(decode(pages, tables.get(c), specs.get(c), stream));
        } catch (ParquetDataException e) {
          throw e.inColumn(c);
        }
      }
      return out;
    } catch (RuntimeException e) {
      Closeables.closeAll(out);
      throw e;
    }
  }
}
