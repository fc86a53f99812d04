package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * Parquet pages on the device: decompression of many compressed pages at once, and decoding of one column's pages
 * into an Arrow-layout {@link DeviceColumn}. Corrupt input never reads or writes out of bounds: it raises a
 * {@link ParquetDataException} naming the block or page. CUDA: {@code parquet.cu}.
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
}
