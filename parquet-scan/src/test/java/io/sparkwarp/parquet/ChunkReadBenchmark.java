package io.sparkwarp.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.memory.HostBlock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The scan's file reads from the page cache, local files with Hadoop's checksums: every byte of {@code files} files
 * of {@code mb} MiB (written first, through Hadoop's LocalFileSystem, so with their {@code .crc} files) read by
 * {@link ChunkReader} with {@code threads} reader threads into one block of transfer memory, through Hadoop's streams
 * against {@link LocalPieceReader}. The two alternate; one warm-up round, then the median of 5, GB/s of file bytes.
 *
 * <p>Run: {@code run.sh main io.sparkwarp.parquet.ChunkReadBenchmark [dir=/tmp/chunk-read] [files=40] [mb=20]
 * [threads=8]}.
 */
public final class ChunkReadBenchmark {
  private static final int ROUNDS = 5;

  public static void main(String[] args) throws IOException {
    java.nio.file.Path dir = java.nio.file.Path.of(args.length > 0 ? args[0] : "/tmp/chunk-read");
    int files = args.length > 1 ? Integer.parseInt(args[1]) : 40;
    int mb = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 8;
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    List<Path> paths = new ArrayList<>();
    List<List<long[]>> ranges = new ArrayList<>();
    byte[] bytes = new byte[mb << 20];
    new Random(1).nextBytes(bytes);
    for (int f = 0; f < files; f++) {
      Path path = new Path(dir.resolve("chunks-" + f).toUri());
      if (!fs.exists(path) || fs.getFileStatus(path).getLen() != bytes.length) {
        try (FSDataOutputStream out = fs.create(path)) {
          out.write(bytes);
        }
      }
      paths.add(path);
      ranges.add(List.<long[]>of(new long[] {0, bytes.length}));
    }
    ChunkReader.Layout layout = ChunkReader.layout(ranges);
    PieceReader.Opener hadoop = path -> new HadoopPieceReader(path.getFileSystem(conf).open(path));
    PieceReader.Opener local = PieceReader.of(conf);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Backend backend = Backends.open(BackendKind.HOST, BackendOptions.defaults());
        HostBlock block = backend.transferMemory().pool().allocate(layout.bytes())) {
      double[][] ms = new double[2][ROUNDS];
      for (int round = -1; round < ROUNDS; round++) {
        for (int way = 0; way < 2; way++) {
          long start = System.nanoTime();
          ChunkReader.read(paths, layout, way == 0 ? hadoop : local, block, pool);
          if (round >= 0) ms[way][round] = (System.nanoTime() - start) / 1e6;
        }
      }
      System.out.printf("%d files of %d MiB, %d reader threads, median of %d%n", files, mb, threads, ROUNDS);
      String[] names = {"Hadoop streams (checksums, heap copy)", "LocalPieceReader (checksums, direct)"};
      for (int way = 0; way < 2; way++) {
        Arrays.sort(ms[way]);
        double median = ms[way][ROUNDS / 2];
        System.out.printf("%-40s %8.1f ms %6.2f GB/s%n", names[way], median, layout.bytes() / median / 1e6);
      }
    } finally {
      pool.shutdown();
    }
  }
}
