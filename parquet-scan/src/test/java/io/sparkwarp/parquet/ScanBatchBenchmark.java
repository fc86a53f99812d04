package io.sparkwarp.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * One task's scan of real files on an otherwise idle device: the first {@code files} Parquet files of a directory
 * read by one {@link ParquetBatchReader} (as one task of the plugin reads its splits), timed by the reader's own
 * clocks: the wait for reads, and the decode (upload, decompression, decoding and the wait for them). Every column
 * together, then each column alone, so the columns the decode spends its time on stand out. One warm-up pass, then
 * the median of 3 by wall time; the files come from the page cache after the warm-up.
 *
 * <p>Run: {@code run.sh main io.sparkwarp.parquet.ScanBatchBenchmark DIR [files=4] [batch-mib=256] [threads=8]
 * [cuda|host]}.
 */
public final class ScanBatchBenchmark {
  private static final int ROUNDS = 3;

  private ScanBatchBenchmark() {}

  public static void main(String[] args) throws IOException {
    Path dir = new Path(args[0]);
    int files = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    long batchBytes = (args.length > 2 ? Long.parseLong(args[2]) : 256) << 20;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 8;
    BackendKind kind = args.length > 4 && args[4].equals("host") ? BackendKind.HOST : BackendKind.CUDA;
    Configuration conf = new Configuration();
    FileSystem fs = dir.getFileSystem(conf);
    List<FileSplit> splits = new ArrayList<>();
    for (FileStatus f : fs.listStatus(dir, p -> p.getName().endsWith(".parquet"))) {
      if (splits.size() < files) splits.add(new FileSplit(f.getPath().toString(), 0, f.getLen()));
    }
    if (splits.isEmpty()) throw new IllegalArgumentException("no .parquet files in " + dir);
    List<ScanColumn> columns = columns(conf, new Path(splits.get(0).path()));
    ScanSettings settings = new ScanSettings(batchBytes, threads, false, RowGroupPredicate.NONE,
        DeviceCodecs.SUPPORTED, HostCodecs.SUPPORTED);
    try (Backend backend = Backends.open(kind, BackendOptions.defaults());
        DeviceStream stream = backend.newStream()) {
      System.out.printf(Locale.ROOT, "scan batches on %s: %d files of %s, batches of %d MiB, %d reader threads%n",
          backend.description(), splits.size(), dir, batchBytes >> 20, threads);
      List<List<ScanColumn>> passes = new ArrayList<>();
      passes.add(columns);
      for (ScanColumn c : columns) passes.add(List.of(c));
      for (List<ScanColumn> pass : passes) {
        Measured m = measure(backend, stream, conf, splits, pass, settings);
        System.out.printf(Locale.ROOT, "%-16s %3d batches, %7.1f MiB uploaded, wall %7.1f ms, read wait %7.1f ms, "
            + "decode %7.1f ms (%.1f GB/s of upload), %6.2f ms a batch%n",
            pass.size() == 1 ? pass.get(0).name() : "all " + pass.size(), m.batches, m.uploaded / 1048576.0,
            m.wallMs, m.readWaitMs, m.decodeMs, m.uploaded / m.decodeMs / 1e6, m.decodeMs / m.batches);
      }
    }
  }

  private record Measured(int batches, long uploaded, double wallMs, double readWaitMs, double decodeMs) {}

  /** The median of {@link #ROUNDS} reads of every split (by wall time), after one warm-up. */
  private static Measured measure(Backend backend, DeviceStream stream, Configuration conf, List<FileSplit> splits,
      List<ScanColumn> columns, ScanSettings settings) {
    Measured[] rounds = new Measured[ROUNDS];
    for (int round = -1; round < ROUNDS; round++) {
      long start = System.nanoTime();
      int batches = 0;
      try (ParquetBatchReader reader = new ParquetBatchReader(backend, stream, conf, splits,
          new int[splits.size()], columns, settings, () -> { })) {
        while (reader.hasNext()) {
          try (DeviceBatch batch = reader.next()) {
            batches++;
          }
        }
        Measured m = new Measured(batches, reader.uploadedBytes(), (System.nanoTime() - start) / 1e6,
            reader.readWaitNanos() / 1e6, reader.decodeNanos() / 1e6);
        if (round >= 0) rounds[round] = m;
      }
    }
    Arrays.sort(rounds, (a, b) -> Double.compare(a.wallMs, b.wallMs));
    return rounds[ROUNDS / 2];
  }

  /** The file's top-level columns of types the scan decodes, as Spark would read them. */
  private static List<ScanColumn> columns(Configuration conf, Path file) throws IOException {
    List<ScanColumn> out = new ArrayList<>();
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      for (Type field : reader.getFileMetaData().getSchema().getFields()) {
        if (field.isPrimitive()) deviceType(field.asPrimitiveType()).ifPresent(t -> out.add(new ScanColumn(
            field.getName(), t)));
      }
    }
    return out;
  }

  private static Optional<DeviceType> deviceType(PrimitiveType type) {
    LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
    if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d && d.getPrecision() <= 18) {
      return Optional.of(DeviceType.decimal(d.getPrecision(), d.getScale()));
    }
    return switch (type.getPrimitiveTypeName()) {
      case BOOLEAN -> Optional.of(DeviceType.BOOLEAN);
      case INT32 -> Optional.of(logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation ? DeviceType.DATE
          : DeviceType.INT);
      case INT64 -> logical == null ? Optional.of(DeviceType.LONG) : Optional.empty();
      case FLOAT -> Optional.of(DeviceType.FLOAT);
      case DOUBLE -> Optional.of(DeviceType.DOUBLE);
      case BINARY -> Optional.of(logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
          ? DeviceType.STRING : DeviceType.BINARY);
      default -> Optional.empty();
    };
  }
}
