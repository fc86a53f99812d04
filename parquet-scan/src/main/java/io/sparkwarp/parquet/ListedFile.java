package io.sparkwarp.parquet;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * A file of a scan as Spark listed it: its footer, once read, holds while the length and modification time are
 * these ({@link FooterCache}). Zero for either where the listing does not say.
 */
public record ListedFile(Path path, long length, long modified) {
  /** The file as its file system lists it now. */
  public static ListedFile of(Configuration conf, Path path) throws IOException {
    FileStatus status = path.getFileSystem(conf).getFileStatus(path);
    return new ListedFile(path, status.getLen(), status.getModificationTime());
  }
}
