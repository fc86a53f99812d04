package io.sparkwarp.parquet;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Positioned reads of one file into pinned host memory, by several reader threads at once. */
interface PieceReader extends Closeable {
  /** Reads bytes {@code [from, from + n)} of the file to {@code host}, all of them or an exception. */
  void read(long from, int n, long host) throws IOException;

  /** How a file is opened for its pieces. */
  @FunctionalInterface
  interface Opener {
    PieceReader open(Path file) throws IOException;
  }

  /**
   * The reader for {@code file}: straight from the local file system where it is one ({@link LocalPieceReader}),
   * else through its Hadoop file system's stream ({@link HadoopPieceReader}).
   */
  static Opener of(Configuration conf) {
    return file -> {
      FileSystem fs = file.getFileSystem(conf);
      PieceReader local = LocalPieceReader.open(fs, file);
      return local != null ? local : new HadoopPieceReader(fs.open(file));
    };
  }
}
