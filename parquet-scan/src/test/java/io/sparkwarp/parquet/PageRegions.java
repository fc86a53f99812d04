package io.sparkwarp.parquet;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

/** Where a Parquet file's page data lie (not their headers): what tests corrupt to check that it is caught. */
public final class PageRegions {
  private PageRegions() {}

  /** File offsets [start, end) of every non-empty page's data, from the footer and the page headers. */
  public static List<long[]> of(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(java.nio.file.Path.of(file.toUri()));
    List<long[]> out = new ArrayList<>();
    for (BlockMetaData block : ScanSupport.footer(new Configuration(), file).getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        long pos = chunk.getStartingPos();
        long end = pos + chunk.getTotalSize();
        while (pos < end) {
          InputStream in = new ByteArrayInputStream(bytes, (int) pos, (int) (end - pos));
          int before = in.available();
          PageHeader h = Util.readPageHeader(in);
          long data = pos + before - in.available();
          if (h.getCompressed_page_size() > 0) out.add(new long[] {data, data + h.getCompressed_page_size()});
          pos = data + h.getCompressed_page_size();
        }
      }
    }
    return out;
  }

  /**
   * Flips one random bit in the data of one random page of {@code file}, in place (a checksum file beside it is left
   * as it was, so it no longer matches); returns the file's length.
   */
  public static long flipBit(Path file, Random rnd) throws IOException {
    List<long[]> pages = of(file);
    long[] page = pages.get(rnd.nextInt(pages.size()));
    java.nio.file.Path local = java.nio.file.Path.of(file.toUri());
    byte[] bytes = Files.readAllBytes(local);
    bytes[(int) (page[0] + rnd.nextInt((int) (page[1] - page[0])))] ^= (byte) (1 << rnd.nextInt(8));
    Files.write(local, bytes);
    return bytes.length;
  }
}
