package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * Encoded columns as one batch, the way the scan hands them over: their compressed inputs end to end, the blocks
 * and page tables moved to where their bytes now lie.
 */
public record EncodedBatch(byte[] input, long pagesBytes, CompressedBlocks blocks, List<PageTable> tables,
    List<ColumnSpec> specs) {
  public static EncodedBatch of(List<EncodedColumn> columns) {
    ByteArrayOutputStream input = new ByteArrayOutputStream();
    CompressedBlocks blocks = new CompressedBlocks();
    List<PageTable> tables = new ArrayList<>();
    long pages = 0;
    for (EncodedColumn c : columns) {
      for (int b = 0; b < c.blocks.count(); b++) {
        blocks.add(input.size() + c.blocks.source(b), c.blocks.sourceBytes(b), pages + c.blocks.target(b),
            c.blocks.targetBytes(b), c.blocks.codec(b));
      }
      tables.add(moved(c.table, pages));
      input.writeBytes(c.input);
      pages += c.pages.length;
    }
    return new EncodedBatch(input.toByteArray(), pages, blocks, tables,
        columns.stream().map(c -> c.spec).toList());
  }

  /** {@code table} with every page {@code by} bytes further on. */
  private static PageTable moved(PageTable table, long by) {
    PageTable out = new PageTable(table.maxDefinition());
    for (int p = 0; p < table.count(); p++) {
      if (table.kind(p) == PageTable.Kind.DICTIONARY_PAGE) {
        out.addDictionary(table.offset(p) + by, table.bytes(p), table.numValues(p));
      } else {
        int dictionary = table.kind(p) == PageTable.Kind.DICTIONARY_ENCODED ? (int) table.link(p) : -1;
        out.addData(table.offset(p) + by, table.bytes(p), table.levelBytes(p), table.numValues(p), table.kind(p),
            dictionary);
      }
    }
    return out;
  }

  /** Decodes the batch on {@code backend} with one {@link ParquetPrimitives#decodeBatch}; the columns as vectors. */
  public List<FieldVector> decode(Backend backend, BufferAllocator allocator) {
    try (DeviceStream stream = backend.newStream();
        DeviceBuffer in = ParquetTesting.upload(backend, input, stream);
        DeviceBuffer pages = backend.allocate(pagesBytes, stream)) {
      List<DeviceColumn> columns = new ArrayList<>(backend.parquet().decodeBatch(in, pages, blocks, tables, specs,
          stream));
      stream.synchronize();
      List<FieldVector> out = new ArrayList<>();
      try {
        for (int c = 0; c < columns.size(); c++) {
          out.add(ParquetTesting.download(backend, columns.set(c, null), allocator, stream));
        }
        return out;
      } catch (RuntimeException e) {
        Closeables.closeAll(columns);
        Closeables.closeAll(out);
        throw e;
      }
    }
  }
}
