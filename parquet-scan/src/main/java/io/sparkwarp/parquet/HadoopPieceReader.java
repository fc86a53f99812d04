package io.sparkwarp.parquet;

import java.io.IOException;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.hadoop.fs.FSDataInputStream;

/**
 * Pieces read through a Hadoop stream (HDFS, object stores): positioned reads straight into pinned memory where the
 * stream can, else through a heap array.
 */
final class HadoopPieceReader implements PieceReader {
  private final FSDataInputStream in;

  HadoopPieceReader(FSDataInputStream in) {
    this.in = in;
  }

  @Override
  public void read(long from, int n, long host) throws IOException {
    if (in.hasCapability("in:preadbytebuffer")) {
      in.readFully(from, MemoryUtil.directBuffer(host, n));
    } else {
      byte[] buffer = new byte[n];
      in.readFully(from, buffer, 0, n);
      MemoryUtil.copyToMemory(buffer, 0, host, n);
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
