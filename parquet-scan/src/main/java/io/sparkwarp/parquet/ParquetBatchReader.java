package io.sparkwarp.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceOutOfMemoryException;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.parquet.ColumnSpec;
import io.sparkwarp.kernels.parquet.ParquetDataException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
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
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexFilter;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the splits of one Spark partition as device batches. Per split, the footer's row groups whose midpoint lies
 * in the split; consecutive row groups, of one split or of several, make a batch of about
 * {@link ScanSettings#batchBytes} when their files decode alike and the caller lets their splits share one (their
 * merge keys). Many small files so cost few batches: each batch pays a fixed device latency. Per batch, the needed
 * column chunks of all its files read into one block of pinned memory by the reader threads (while the previous
 * batch is on the device), their page headers parsed, one upload of the compressed bytes, then one decompression of
 * all pages and one decode per column on the device; a batch the device has no room for is read in halves. Not
 * thread-safe: one task's iterator.
 */
public final class ParquetBatchReader implements Iterator<DeviceBatch>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ParquetBatchReader.class);
  private final Backend backend;
  private final DeviceStream stream;
  private final Configuration conf;
  private final List<FileSplit> splits;
  /** Per split: splits of different keys never share a batch. */
  private final int[] mergeKeys;
  private final List<ScanColumn> columns;
  private final ScanSettings settings;
  /** Runs before the first device work of each batch (the task takes its GPU place there). */
  private final Runnable beforeDeviceWork;
  /** Whether page checksums are verified: as Spark's reader, by parquet-mr's parquet.page.verify-checksum.enabled. */
  private final boolean verifyPageChecksums;
  private List<Plan> plans;
  private int nextPlan;
  private Future<Gathered> pending;
  /** Compressed bytes uploaded so far (column chunks, page headers and small gaps included). */
  private long uploadedBytes;
  /** A split the last batch came from. */
  private int lastSplit = -1;
  /** Nanoseconds {@link #next()} waited for its batch's reads, for admission, and uploaded and decoded. */
  private long readWaitNanos;
  private long deviceWaitNanos;
  private long decodeNanos;
  /** Row groups of the splits that pruning left out. */
  private long skippedRowGroups;
  /** Data pages of the batches decoded so far that the column indexes ruled out. */
  private long skippedPages;
  /** Halves of batches the device had no room for, read before the next planned batch. */
  private final Deque<Plan> retries = new ArrayDeque<>();
  /** Batches read in halves for want of device memory. */
  private long splitBatches;

  /** @param mergeKeys one per split: only consecutive splits of equal keys may share a batch */
  public ParquetBatchReader(Backend backend, DeviceStream stream, Configuration conf, List<FileSplit> splits,
      int[] mergeKeys, List<ScanColumn> columns, ScanSettings settings, Runnable beforeDeviceWork) {
    if (mergeKeys.length != splits.size()) {
      throw new IllegalArgumentException(mergeKeys.length + " merge keys for " + splits.size() + " splits");
    }
    this.backend = backend;
    this.stream = stream;
    this.conf = conf;
    this.splits = splits;
    this.mergeKeys = mergeKeys.clone();
    this.columns = columns;
    this.settings = settings;
    this.beforeDeviceWork = beforeDeviceWork;
    this.verifyPageChecksums = HadoopReadOptions.builder(conf).build().usePageChecksumVerification();
  }

  /** One batch to make: row groups of one or more files, which decode alike. */
  private record Plan(List<Part> parts, Decoding decoding, long rows) {
    /** The row groups in two batches of about half as many each; null for a single row group. */
    List<Plan> halves() {
      int total = parts.stream().mapToInt(p -> p.rowGroups().size()).sum();
      if (total < 2) return null;
      List<Part> first = new ArrayList<>();
      List<Part> second = new ArrayList<>();
      long firstRows = 0;
      int seen = 0;
      for (Part p : parts) {
        List<RowGroup> a = new ArrayList<>();
        List<RowGroup> b = new ArrayList<>();
        for (RowGroup g : p.rowGroups()) {
          if (seen++ < total / 2) {
            a.add(g);
            firstRows += g.rows();
          } else {
            b.add(g);
          }
        }
        if (!a.isEmpty()) first.add(new Part(p.split(), p.file(), a, p.descriptors()));
        if (!b.isEmpty()) second.add(new Part(p.split(), p.file(), b, p.descriptors()));
      }
      return List.of(new Plan(first, decoding, firstRows), new Plan(second, decoding, rows - firstRows));
    }
  }

  /**
   * Row groups of split {@code split} of the reader's list (those pruning kept, or those of one batch); per scan column
   * its descriptor in the file, null for a column the file lacks.
   */
  private record Part(int split, Path file, List<RowGroup> rowGroups, List<ColumnDescriptor> descriptors) {}

  /**
   * A row group to read, the rows of it the column indexes may not rule out (parquet-mr's {@code ColumnIndexFilter},
   * as Spark's reader reads them; null for every row) and, where some are ruled out, per scan column the offset index
   * of its chunk, to read only the pages with kept rows (null where the file has none: the whole chunk is read).
   */
  private record RowGroup(BlockMetaData block, RowRanges kept, List<OffsetIndex> pageIndexes) {
    long rows() {
      return kept == null ? block.getRowCount() : kept.rowCount();
    }
  }

  /**
   * Bytes of a column chunk to read: the whole chunk ({@code firstRow} {@link #WHOLE_CHUNK}), its dictionary page
   * (-1) or one data page whose first row in the row group is {@code firstRow}.
   */
  private record Piece(long start, long length, long firstRow) {
    static final long WHOLE_CHUNK = -2;
  }

  /**
   * How a file's columns decode, per scan column: the device decoding (null for a column the file lacks) and the
   * maximum definition level. Files of one batch decode alike: each column's pages make one table.
   */
  private record Decoding(List<ColumnSpec> specs, List<Integer> maxDefinitions) {
    static Decoding of(List<ColumnDescriptor> descriptors, List<ScanColumn> columns) {
      List<ColumnSpec> specs = new ArrayList<>();
      List<Integer> maxDefinitions = new ArrayList<>();
      for (int c = 0; c < columns.size(); c++) {
        ColumnDescriptor d = descriptors.get(c);
        specs.add(d == null ? null : ColumnMapping.spec(d.getPrimitiveType(), columns.get(c).type()));
        maxDefinitions.add(d == null ? 0 : d.getMaxDefinitionLevel());
      }
      return new Decoding(specs, maxDefinitions);
    }
  }

  /**
   * A plan's column chunks in pinned memory ({@code readBytes} of {@code read}) with the tables of their pages, and
   * the pages of host codecs inflated (null when there are none).
   */
  private record Gathered(Plan plan, HostBlock read, long readBytes, BatchTables tables, HostBlock inflated)
      implements AutoCloseable {
    @Override
    public void close() {
      try (HostBlock r = read; HostBlock i = inflated) {
        // both freed, whatever the other does
      }
    }
  }

  @Override
  public boolean hasNext() {
    if (plans == null) plans = plan();
    return !retries.isEmpty() || nextPlan < plans.size();
  }

  @Override
  public DeviceBatch next() {
    if (!hasNext()) throw new NoSuchElementException();
    long start = System.nanoTime();
    if (!retries.isEmpty()) {
      Gathered half = gather(retries.poll());
      readWaitNanos += System.nanoTime() - start;
      return decodeOrSplit(half);
    }
    if (pending == null) pending = gatherLater(plans.get(nextPlan));
    Gathered current = await(pending);
    readWaitNanos += System.nanoTime() - start;
    nextPlan++;
    pending = nextPlan < plans.size() ? gatherLater(plans.get(nextPlan)) : null;
    return decodeOrSplit(current);
  }

  /**
   * Decodes a gathered batch; when the device has no room for it even after waiting for other tasks to free some,
   * reads its two halves instead, first before second, ahead of the planned batches (rows stay in order). A batch of
   * one row group that does not fit fails the task with the out-of-memory error.
   */
  private DeviceBatch decodeOrSplit(Gathered g) {
    List<Plan> halves;
    try (Gathered gathered = g) {
      lastSplit = gathered.plan().parts().get(0).split();
      return decode(gathered);
    } catch (DeviceOutOfMemoryException e) {
      halves = g.plan().halves();
      if (halves == null) throw e;
      LOG.info("no device memory for a batch of {} rows, reading it in halves: {}", g.plan().rows(), e.getMessage());
      splitBatches++;
    }
    retries.addFirst(halves.get(1));
    retries.addFirst(halves.get(0));
    return next();
  }

  /** Footers of every split, and the batches they make. */
  private List<Plan> plan() {
    long limit = Math.min(settings.batchBytes(), ScanSupport.MAX_BATCH_BYTES - 1);
    List<Plan> out = new ArrayList<>();
    List<Part> parts = new ArrayList<>();  // of the batch being planned
    Decoding decoding = null;
    long bytes = 0;
    long rows = 0;
    for (int index = 0; index < splits.size(); index++) {
      Part split = split(index);
      Decoding splitDecoding = Decoding.of(split.descriptors(), columns);
      Part part = null;
      for (RowGroup group : split.rowGroups()) {
        long blockBytes = 0;
        for (ColumnDescriptor d : split.descriptors()) {
          if (d != null) blockBytes += chunk(split.file(), group.block(), d).getTotalUncompressedSize();
        }
        if (!parts.isEmpty() && (mergeKeys[index] != mergeKeys[parts.get(0).split()]
            || !splitDecoding.equals(decoding) || bytes + blockBytes > limit
            || rows + group.rows() > Integer.MAX_VALUE)) {
          out.add(new Plan(parts, decoding, rows));
          parts = new ArrayList<>();
          part = null;
          bytes = 0;
          rows = 0;
        }
        if (part == null) {
          part = new Part(index, split.file(), new ArrayList<>(), split.descriptors());
          parts.add(part);
        }
        decoding = splitDecoding;
        part.rowGroups().add(group);
        bytes += blockBytes;
        rows += group.rows();
      }
    }
    if (!parts.isEmpty()) out.add(new Plan(parts, decoding, rows));
    return out;
  }

  /** Split {@code index}: its file's footer read, its row groups that pruning keeps, the file's scan columns. */
  private Part split(int index) {
    FileSplit split = splits.get(index);
    Path file = new Path(java.net.URI.create(split.path()));
    ParquetMetadata footer;
    List<ColumnDescriptor> descriptors;
    List<RowGroup> groups = new ArrayList<>();
    ParquetReadOptions options = HadoopReadOptions.builder(conf)
        .withRange(split.start(), split.start() + split.length()).build();
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf), options)) {
      footer = reader.getFooter();
      try {
        descriptors = FileColumns.resolve(footer.getFileMetaData().getSchema(), columns, settings.caseSensitive());
      } catch (UnsupportedParquetException e) {
        throw new CorruptParquetException("parquet file " + file + " changed since planning: " + e.getMessage(), e);
      }
      Optional<FilterPredicate> predicate = predicate(reader, file);
      boolean indexed = predicate.isPresent() && options.useColumnIndexFilter();
      for (BlockMetaData block : prune(reader, options, predicate)) {
        // parquet-mr reads a row group's offset indexes when asked for its store: only where a filter may use them
        ColumnIndexStore indexes = indexed ? reader.getColumnIndexStore(reader.getRowGroups().indexOf(block)) : null;
        RowRanges kept = indexed ? keptRows(indexes, predicate.get(), block, descriptors) : null;
        if (kept != null && kept.rowCount() == 0) continue;
        groups.add(new RowGroup(block, kept, kept == null ? null : pageIndexes(indexes, descriptors)));
      }
    } catch (CorruptParquetException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new CorruptParquetException("cannot read the footer of parquet file " + file + ": " + e.getMessage(), e);
    }
    skippedRowGroups += footer.getBlocks().size() - groups.size();
    return new Part(index, file, groups, descriptors);
  }

  /** The scan's filter for this file; empty when it has none, or it cannot be built for this file. */
  private Optional<FilterPredicate> predicate(ParquetFileReader reader, Path file) {
    try {
      return settings.rowGroups().forFile(reader.getFooter().getFileMetaData().getSchema());
    } catch (RuntimeException e) {  // pruning only saves work
      LOG.debug("no pruning for {}", file, e);
      return Optional.empty();
    }
  }

  /**
   * The rows of {@code block} that the column indexes of the scan's columns do not rule out for {@code predicate}, as
   * parquet-mr's reader keeps them for Spark when {@code parquet.filter.columnindex.enabled} (the default); null for
   * every row (no column indexes, or nothing ruled out).
   */
  private static RowRanges keptRows(ColumnIndexStore indexes, FilterPredicate predicate, BlockMetaData block,
      List<ColumnDescriptor> descriptors) {
    Set<ColumnPath> paths = new HashSet<>();
    for (ColumnDescriptor d : descriptors) {
      if (d != null) paths.add(ColumnPath.get(d.getPath()));
    }
    RowRanges kept = ColumnIndexFilter.calculateRowRanges(FilterCompat.get(predicate), indexes, paths,
        block.getRowCount());
    return kept.rowCount() == block.getRowCount() ? null : kept;
  }

  /** Per scan column, its chunk's offset index; null where the file lacks the column or the index. */
  private static List<OffsetIndex> pageIndexes(ColumnIndexStore indexes, List<ColumnDescriptor> descriptors) {
    List<OffsetIndex> out = new ArrayList<>();
    for (ColumnDescriptor d : descriptors) {
      OffsetIndex index = null;
      if (d != null) {
        try {
          index = indexes.getOffsetIndex(ColumnPath.get(d.getPath()));
        } catch (ColumnIndexStore.MissingOffsetIndexException e) {
          // read whole: its pages are still left out by their row spans
        }
      }
      out.add(index);
    }
    return out;
  }

  /**
   * What to read of column {@code c}'s chunk in {@code group}: the whole chunk, or, where its offset index says where
   * the pages lie, its dictionary page and the data pages holding kept rows. An offset index pointing outside the
   * chunk reads the whole chunk.
   */
  private static List<Piece> pieces(RowGroup group, int c, ColumnChunkMetaData chunk) {
    long start = chunk.getStartingPos();
    long end = start + chunk.getTotalSize();
    Piece whole = new Piece(start, chunk.getTotalSize(), Piece.WHOLE_CHUNK);
    OffsetIndex index = group.pageIndexes() == null ? null : group.pageIndexes().get(c);
    if (index == null || index.getPageCount() == 0) return List.of(whole);
    List<Piece> pieces = new ArrayList<>();
    if (index.getOffset(0) < start) return List.of(whole);
    if (index.getOffset(0) > start) pieces.add(new Piece(start, index.getOffset(0) - start, -1));
    for (int i = 0; i < index.getPageCount(); i++) {
      long first = index.getFirstRowIndex(i);
      if (index.getOffset(i) + index.getCompressedPageSize(i) > end) return List.of(whole);
      if (group.kept().isOverlapping(first, index.getLastRowIndex(i, group.block().getRowCount()))) {
        pieces.add(new Piece(index.getOffset(i), index.getCompressedPageSize(i), first));
      }
    }
    return pieces;
  }

  /**
   * The split's row groups that may hold rows the scan's filter keeps, by the levels the file's read options enable
   * (statistics, dictionaries, bloom filters: parquet-mr's own pruning, as Spark's reader uses it). Pruning only
   * saves work, so a filter that cannot be built for this file reads every row group.
   */
  private static List<BlockMetaData> prune(ParquetFileReader reader, ParquetReadOptions options,
      Optional<FilterPredicate> predicate) {
    List<BlockMetaData> all = reader.getFooter().getBlocks();
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

  /** Reads a plan's column chunks, of all its files into one block, and parses their pages (on a prefetch thread). */
  private Gathered gather(Plan plan) {
    List<List<long[]>> ranges = new ArrayList<>();
    for (Part part : plan.parts()) {
      List<long[]> own = new ArrayList<>();
      for (RowGroup group : part.rowGroups()) {
        for (int c = 0; c < part.descriptors().size(); c++) {
          ColumnDescriptor d = part.descriptors().get(c);
          if (d == null) continue;
          for (Piece piece : pieces(group, c, chunk(part.file(), group.block(), d))) {
            // the pages a column index leaves out are not read, nor uploaded
            own.add(piece.firstRow() == Piece.WHOLE_CHUNK ? new long[] {piece.start(), piece.length()}
                : new long[] {piece.start(), piece.length(), 0});
          }
        }
      }
      ranges.add(own);
    }
    ChunkReader.Layout layout = ChunkReader.layout(ranges);
    HostBlock read = backend.transferMemory().pool().allocate(layout.bytes());
    try {
      ChunkReader.read(plan.parts().stream().map(Part::file).toList(), layout, conf, read,
          ReaderThreads.reads(settings.readerThreads()));
      BatchTables tables = new BatchTables(plan.decoding().maxDefinitions().stream().mapToInt(Integer::intValue)
          .toArray(), layout.bytes());
      for (int p = 0; p < plan.parts().size(); p++) parse(plan, p, read, layout.offsets().get(p), tables);
      return new Gathered(plan, read, layout.bytes(), tables, inflate(plan, tables));
    } catch (RuntimeException e) {
      read.close();
      throw e;
    }
  }

  /** Adds the pages of part {@code p}'s column chunks, at {@code offsets} of {@code read}, to {@code tables}. */
  private void parse(Plan plan, int p, HostBlock read, long[] offsets, BatchTables tables) {
    Part part = plan.parts().get(p);
    int range = 0;
    for (RowGroup group : part.rowGroups()) {
      BlockMetaData block = group.block();
      for (int c = 0; c < part.descriptors().size(); c++) {
        if (part.descriptors().get(c) == null) continue;
        ColumnChunkMetaData chunk = chunk(part.file(), block, part.descriptors().get(c));
        BatchTables.Owner owner = new BatchTables.Owner(p, c, block.getOrdinal());
        try {
          if (chunk.getValueCount() != block.getRowCount()) {
            throw new CorruptChunkException(chunk.getValueCount() + " values in a row group of "
                + block.getRowCount() + " rows");
          }
          List<Piece> pieces = pieces(group, c, chunk);
          PageHeaders.Walk walk = new PageHeaders.Walk();
          for (Piece piece : pieces) {
            long offset = offsets[range++];
            PageHeaders.Chunk pages = new PageHeaders.Chunk(owner, read.address() + offset, offset, piece.length(),
                codec(chunk.getCodec()), DeviceCodecs.onDevice(chunk.getCodec(), settings.deviceCodecs()),
                chunk.getPrimitiveType().getPrimitiveTypeName(), chunk.getValueCount(), group.kept(),
                verifyPageChecksums);
            if (piece.firstRow() == Piece.WHOLE_CHUNK) {
              PageHeaders.parse(pages, tables);
            } else {
              PageHeaders.parsePage(pages, piece.firstRow(), walk, tables);
            }
          }
          if (pieces.get(0).firstRow() != Piece.WHOLE_CHUNK) {
            long dataPieces = pieces.stream().filter(piece -> piece.firstRow() >= 0).count();
            for (long i = dataPieces; i < group.pageIndexes().get(c).getPageCount(); i++) tables.pageSkipped();
          }
        } catch (CorruptChunkException | UnsupportedParquetException e) {
          throw corrupt(plan, owner, e.getMessage(), e);
        }
      }
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
          throw corrupt(plan, page.owner(), e.getMessage(), e);
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
    try (DeviceBuffer input = backend.allocate(g.readBytes() + inflatedBytes, stream);
        DeviceBuffer pages = backend.allocate(tables.pagesBytes(), stream)) {
      backend.copyHostToDevice(g.read().address(), input, 0, g.readBytes(), stream);
      if (inflatedBytes > 0) {
        backend.copyHostToDevice(g.inflated().address(), input, g.readBytes(), inflatedBytes, stream);
      }
      uploadedBytes += g.readBytes() + inflatedBytes;
      skippedPages += tables.skippedPages();
      List<ColumnSpec> specs = plan.decoding().specs();
      List<Integer> stored = new ArrayList<>();  // the columns the files hold, decoded together
      for (int c = 0; c < specs.size(); c++) {
        if (specs.get(c) == null) continue;
        if (tables.keptRows(c) != plan.rows()) {
          int rowGroup = plan.parts().get(0).rowGroups().get(0).block().getOrdinal();
          throw corrupt(plan, new BatchTables.Owner(0, c, rowGroup), "pages hold " + tables.keptRows(c)
              + " rows, the row groups " + plan.rows(), null);
        }
        stored.add(c);
      }
      List<DeviceColumn> decoded;
      try {
        decoded = new ArrayList<>(backend.parquet().decodeBatch(input, pages, tables.blocks,
            stored.stream().map(c -> tables.tables[c]).toList(), stored.stream().map(specs::get).toList(), stream));
      } catch (ParquetDataException e) {
        throw corrupt(plan, e.column() < 0 ? tables.blockOwner(e.index())
            : tables.pageOwner(stored.get(e.column()), e.index()), e.getMessage(), e);
      }
      List<DeviceColumn> out = new ArrayList<>();
      try {
        int next = 0;
        for (int c = 0; c < specs.size(); c++) {
          if (specs.get(c) == null) {  // a column the files lack
            out.add(DeviceColumn.nulls(backend, columns.get(c).type(), (int) plan.rows(), stream));
          } else {
            out.add(RowSlices.keep(backend, decoded.set(next++, null), tables.keptSlices(c), stream));
          }
        }
        stream.synchronize();  // the pages buffer is freed next
        decodeNanos += System.nanoTime() - admitted;
        return new DeviceBatch(out, (int) plan.rows());
      } catch (RuntimeException e) {
        Closeables.closeAll(out);
        Closeables.closeAll(decoded);  // those not yet kept
        throw e;
      }
    }
  }

  private CorruptParquetException corrupt(Plan plan, BatchTables.Owner owner, String why, Throwable cause) {
    return new CorruptParquetException("corrupt parquet file " + plan.parts().get(owner.part()).file() + " (column "
        + columns.get(owner.column()).name() + ", row group " + owner.rowGroup() + "): " + why, cause);
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
    if (DeviceCodecs.onDevice(codec, settings.deviceCodecs()) || settings.hostCodecs().contains(codec)) return codec;
    throw new UnsupportedParquetException("codec " + codec + " is not decompressed by the GPU scan");
  }

  /**
   * Index in the reader's splits of a split the last batch of {@link #next()} came from (the splits of a batch share
   * their merge key).
   */
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

  /** Batches so far that were read in halves because the device had no room for them whole. */
  public long splitBatches() {
    return splitBatches;
  }

  /** Row groups left out so far because the scan's filter excludes their rows (known once planned). */
  public long skippedRowGroups() {
    return skippedRowGroups;
  }

  /**
   * Data pages of the row groups read so far that the column indexes ruled out: not decompressed nor decoded, and
   * not read either where their chunk's offset index says where the kept pages lie.
   */
  public long skippedPages() {
    return skippedPages;
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
