package io.sparkwarp.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.parquet.ColumnSpec;
import io.sparkwarp.kernels.parquet.ParquetDataException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.compat.RowGroupFilter;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.PrimitiveType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the splits of one Spark partition as device batches. Per split, the footer's row groups whose midpoint lies
 * in the split, grouped into batches of about {@link ScanSettings#batchBytes}; per batch, the needed column chunks
 * read into pinned memory by the reader threads (while the previous batch is on the device), their page headers
 * parsed, one upload of the compressed bytes, then one decompression of all pages and one decode per column on the
 * device. Not thread-safe: one task's iterator.
 */
public final class ParquetBatchReader implements Iterator<DeviceBatch>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ParquetBatchReader.class);
  private final Backend backend;
  private final DeviceStream stream;
  private final Configuration conf;
  private final List<FileSplit> splits;
  private final List<ScanColumn> columns;
  private final ScanSettings settings;
  /** Runs before the first device work of each batch (the task takes its GPU place there). */
  private final Runnable beforeDeviceWork;
  private List<Plan> plans;
  private int nextPlan;
  private Future<Gathered> pending;
  /** Compressed bytes uploaded so far (column chunks, page headers and small gaps included). */
  private long uploadedBytes;
  /** The split the last batch came from. */
  private int lastSplit = -1;
  /** Nanoseconds {@link #next()} waited for its batch's reads, for admission, and uploaded and decoded. */
  private long readWaitNanos;
  private long deviceWaitNanos;
  private long decodeNanos;
  /** Row groups of the splits that pruning left out. */
  private long skippedRowGroups;

  public ParquetBatchReader(Backend backend, DeviceStream stream, Configuration conf, List<FileSplit> splits,
      List<ScanColumn> columns, ScanSettings settings, Runnable beforeDeviceWork) {
    this.backend = backend;
    this.stream = stream;
    this.conf = conf;
    this.splits = splits;
    this.columns = columns;
    this.settings = settings;
    this.beforeDeviceWork = beforeDeviceWork;
  }

  /**
   * One batch to make: row groups of one file, split {@code split} of the reader's list; per scan column its
   * descriptor in the file and how to decode it, both null for a column the file lacks.
   */
  private record Plan(int split, Path file, List<BlockMetaData> rowGroups, List<ColumnDescriptor> descriptors,
      List<ColumnSpec> specs, long rows) {}

  /**
   * A plan's column chunks in pinned memory with the tables of their pages, and the pages of host codecs inflated
   * (null when there are none).
   */
  private record Gathered(Plan plan, ChunkReader.Read read, BatchTables tables, HostBlock inflated)
      implements AutoCloseable {
    @Override
    public void close() {
      try (ChunkReader.Read r = read; HostBlock i = inflated) {
        // both freed, whatever the other does
      }
    }
  }

  @Override
  public boolean hasNext() {
    if (plans == null) plans = plan();
    return nextPlan < plans.size();
  }

  @Override
  public DeviceBatch next() {
    if (!hasNext()) throw new NoSuchElementException();
    if (pending == null) pending = gatherLater(plans.get(nextPlan));
    long start = System.nanoTime();
    Gathered current = await(pending);
    readWaitNanos += System.nanoTime() - start;
    lastSplit = current.plan().split();
    nextPlan++;
    pending = nextPlan < plans.size() ? gatherLater(plans.get(nextPlan)) : null;
    try (Gathered gathered = current) {
      return decode(gathered);
    }
  }

  /** Footers of every split, and the batches they make. */
  private List<Plan> plan() {
    List<Plan> out = new ArrayList<>();
    for (int index = 0; index < splits.size(); index++) {
      FileSplit split = splits.get(index);
      Path file = new Path(java.net.URI.create(split.path()));
      ParquetMetadata footer;
      List<BlockMetaData> blocks;
      ParquetReadOptions options = HadoopReadOptions.builder(conf)
          .withRange(split.start(), split.start() + split.length()).build();
      try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf), options)) {
        footer = reader.getFooter();
        blocks = prune(reader, options, file);
      } catch (IOException | RuntimeException e) {
        throw new CorruptParquetException("cannot read the footer of parquet file " + file + ": " + e.getMessage(), e);
      }
      skippedRowGroups += footer.getBlocks().size() - blocks.size();
      List<ColumnDescriptor> descriptors;
      try {
        descriptors = FileColumns.resolve(footer.getFileMetaData().getSchema(), columns, settings.caseSensitive());
      } catch (UnsupportedParquetException e) {
        throw new CorruptParquetException("parquet file " + file + " changed since planning: " + e.getMessage(), e);
      }
      List<ColumnSpec> specs = new ArrayList<>();
      for (int c = 0; c < columns.size(); c++) {
        ColumnDescriptor d = descriptors.get(c);
        specs.add(d == null ? null : ColumnMapping.spec(d.getPrimitiveType(), columns.get(c).type()));
      }
      List<BlockMetaData> group = new ArrayList<>();
      long bytes = 0;
      long rows = 0;
      for (BlockMetaData block : blocks) {
        long blockBytes = 0;
        for (ColumnDescriptor d : descriptors) {
          if (d != null) blockBytes += chunk(file, block, d).getTotalUncompressedSize();
        }
        if (!group.isEmpty() && (bytes + blockBytes > Math.min(settings.batchBytes(), ScanSupport.MAX_BATCH_BYTES - 1)
            || rows + block.getRowCount() > Integer.MAX_VALUE)) {
          out.add(new Plan(index, file, group, descriptors, specs, rows));
          group = new ArrayList<>();
          bytes = 0;
          rows = 0;
        }
        group.add(block);
        bytes += blockBytes;
        rows += block.getRowCount();
      }
      if (!group.isEmpty()) out.add(new Plan(index, file, group, descriptors, specs, rows));
    }
    return out;
  }

  /**
   * The split's row groups that may hold rows the scan's filter keeps, by the levels the file's read options enable
   * (statistics, dictionaries, bloom filters: parquet-mr's own pruning, as Spark's reader uses it). Pruning only
   * saves work, so a filter that cannot be built for this file reads every row group.
   */
  private List<BlockMetaData> prune(ParquetFileReader reader, ParquetReadOptions options, Path file) {
    List<BlockMetaData> all = reader.getFooter().getBlocks();
    Optional<FilterPredicate> predicate;
    try {
      predicate = settings.rowGroups().forFile(reader.getFooter().getFileMetaData().getSchema());
    } catch (RuntimeException e) {
      LOG.debug("no row group pruning for {}", file, e);
      return all;
    }
    if (predicate.isEmpty() || all.isEmpty()) return all;
    List<RowGroupFilter.FilterLevel> levels = new ArrayList<>();
    if (options.useStatsFilter()) levels.add(RowGroupFilter.FilterLevel.STATISTICS);
    if (options.useDictionaryFilter()) levels.add(RowGroupFilter.FilterLevel.DICTIONARY);
    if (options.useBloomFilter()) levels.add(RowGroupFilter.FilterLevel.BLOOMFILTER);
    return RowGroupFilter.filterRowGroups(levels, FilterCompat.get(predicate.get()), all, reader);
  }

  private Future<Gathered> gatherLater(Plan plan) {
    return ReaderThreads.prefetch().submit(() -> gather(plan));
  }

  private static Gathered await(Future<Gathered> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading parquet", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
  }

  /** Reads a plan's column chunks and parses their pages (on a prefetch thread). */
  private Gathered gather(Plan plan) {
    List<long[]> ranges = new ArrayList<>();
    for (BlockMetaData block : plan.rowGroups()) {
      for (ColumnDescriptor d : plan.descriptors()) {
        if (d == null) continue;
        ColumnChunkMetaData chunk = chunk(plan.file(), block, d);
        ranges.add(new long[] {chunk.getStartingPos(), chunk.getTotalSize()});
      }
    }
    ChunkReader.Read read;
    try (FSDataInputStream in = plan.file().getFileSystem(conf).open(plan.file())) {
      read = ChunkReader.read(in, ranges, backend.transferMemory().pool(), ReaderThreads.reads(settings.readerThreads()));
    } catch (IOException | UncheckedIOException e) {
      throw new CorruptParquetException("cannot read parquet file " + plan.file() + ": " + e.getMessage(), e);
    }
    try {
      int[] maxDefinitions = plan.descriptors().stream().mapToInt(d -> d == null ? 0 : d.getMaxDefinitionLevel())
          .toArray();
      BatchTables tables = new BatchTables(maxDefinitions, read.bytes());
      int range = 0;
      for (BlockMetaData block : plan.rowGroups()) {
        for (int c = 0; c < plan.descriptors().size(); c++) {
          if (plan.descriptors().get(c) == null) continue;
          ColumnChunkMetaData chunk = chunk(plan.file(), block, plan.descriptors().get(c));
          long offset = read.offsets()[range++];
          try {
            PageHeaders.Chunk pages = new PageHeaders.Chunk(c, block.getOrdinal(), read.block().address() + offset,
                offset, chunk.getTotalSize(), codec(chunk.getCodec()),
                chunk.getPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BOOLEAN,
                chunk.getValueCount());
            if (chunk.getValueCount() != block.getRowCount()) {
              throw new CorruptChunkException(chunk.getValueCount() + " values in a row group of "
                  + block.getRowCount() + " rows");
            }
            PageHeaders.parse(pages, tables);
          } catch (CorruptChunkException | UnsupportedParquetException e) {
            throw corrupt(plan, c, block.getOrdinal(), e.getMessage(), e);
          }
        }
      }
      return new Gathered(plan, read, tables, inflate(plan, tables));
    } catch (RuntimeException e) {
      read.close();
      throw e;
    }
  }

  /** Inflates the pages of host codecs into one pinned block (on the prefetch thread); null when there are none. */
  private HostBlock inflate(Plan plan, BatchTables tables) {
    if (tables.inflations.isEmpty()) return null;
    HostBlock inflated = backend.transferMemory().pool().allocate(tables.inflatedBytes());
    try (HostCodecs.Inflater inflater = new HostCodecs.Inflater(conf)) {
      for (BatchTables.Inflation page : tables.inflations) {
        try {
          inflater.inflate(page.codec(), page.from(), page.stored(), inflated.address() + page.offset(), page.size());
        } catch (CorruptChunkException e) {
          throw corrupt(plan, page.column(), page.rowGroup(), e.getMessage(), e);
        }
      }
      return inflated;
    } catch (RuntimeException e) {
      inflated.close();
      throw e;
    }
  }

  private DeviceBatch decode(Gathered g) {
    Plan plan = g.plan();
    BatchTables tables = g.tables();
    long start = System.nanoTime();
    beforeDeviceWork.run();
    long admitted = System.nanoTime();
    deviceWaitNanos += admitted - start;
    long inflatedBytes = tables.inflatedBytes();
    try (DeviceBuffer input = backend.allocate(g.read().bytes() + inflatedBytes, stream);
        DeviceBuffer pages = backend.allocate(tables.pagesBytes(), stream)) {
      backend.copyHostToDevice(g.read().block().address(), input, 0, g.read().bytes(), stream);
      if (inflatedBytes > 0) {
        backend.copyHostToDevice(g.inflated().address(), input, g.read().bytes(), inflatedBytes, stream);
      }
      uploadedBytes += g.read().bytes() + inflatedBytes;
      try {
        backend.parquet().decompress(input, pages, tables.blocks, stream);
      } catch (ParquetDataException e) {
        throw corrupt(plan, tables.blockColumn(e.index()), tables.blockRowGroup(e.index()), e.getMessage(), e);
      }
      List<DeviceColumn> out = new ArrayList<>();
      try {
        for (int c = 0; c < plan.specs().size(); c++) {
          if (plan.specs().get(c) == null) {  // a column the file lacks
            out.add(DeviceColumn.nulls(backend, columns.get(c).type(), (int) plan.rows(), stream));
            continue;
          }
          if (tables.tables[c].rowCount() != plan.rows()) {
            throw corrupt(plan, c, plan.rowGroups().get(0).getOrdinal(), "pages hold " + tables.tables[c].rowCount()
                + " rows, the row groups " + plan.rows(), null);
          }
          try {
            out.add(backend.parquet().decode(pages, tables.tables[c], plan.specs().get(c), stream));
          } catch (ParquetDataException e) {
            throw corrupt(plan, c, tables.pageRowGroup(c, e.index()), e.getMessage(), e);
          }
        }
        stream.synchronize();  // the pages buffer is freed next
        decodeNanos += System.nanoTime() - admitted;
        return new DeviceBatch(out, (int) plan.rows());
      } catch (RuntimeException e) {
        Closeables.closeAll(out);
        throw e;
      }
    }
  }

  private CorruptParquetException corrupt(Plan plan, int column, int rowGroup, String why, Throwable cause) {
    return new CorruptParquetException("corrupt parquet file " + plan.file() + " (column " + columns.get(column).name()
        + ", row group " + rowGroup + "): " + why, cause);
  }

  private static ColumnChunkMetaData chunk(Path file, BlockMetaData block, ColumnDescriptor d) {
    ColumnChunkMetaData chunk = ScanSupport.chunk(block, d);
    if (chunk == null) {
      throw new CorruptParquetException("parquet file " + file + " has a row group without column "
          + String.join(".", d.getPath()), null);
    }
    return chunk;
  }

  /** The chunk's codec, when the device or a reader thread decompresses it. */
  private CompressionCodecName codec(CompressionCodecName codec) {
    if (ScanSupport.CODECS.contains(codec) || settings.hostCodecs().contains(codec)) return codec;
    throw new UnsupportedParquetException("codec " + codec + " is not decompressed by the GPU scan");
  }

  /** Index in the reader's splits of the split the last batch of {@link #next()} came from. */
  public int lastSplit() {
    return lastSplit;
  }

  /** Compressed bytes this reader has uploaded: its batches cross PCIe as the files store them. */
  public long uploadedBytes() {
    return uploadedBytes;
  }

  /** Nanoseconds so far that {@link #next()} waited for file reads (and page header parsing) to finish. */
  public long readWaitNanos() {
    return readWaitNanos;
  }

  /** Nanoseconds so far spent waiting before device work (the task's admission to the device). */
  public long deviceWaitNanos() {
    return deviceWaitNanos;
  }

  /** Nanoseconds so far spent uploading, decompressing and decoding, until the device finished. */
  public long decodeNanos() {
    return decodeNanos;
  }

  /** Row groups left out so far because the scan's filter excludes their rows (known once planned). */
  public long skippedRowGroups() {
    return skippedRowGroups;
  }

  /** Waits for a batch still being gathered and frees it. */
  @Override
  public void close() {
    if (pending != null) {
      try {
        await(pending).close();
      } catch (RuntimeException e) {
        // the task is ending; a read that failed holds nothing
      }
      pending = null;
    }
  }
}
