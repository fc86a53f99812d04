package io.sparkwarp.parquet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Codecs the scan decompresses on CPU threads rather than on the device: each page is inflated by parquet-mr's own
 * decompressor (the one Spark's reader uses, so both accept and reject the same bytes) into pinned memory while the
 * reader prefetches, and crosses PCIe decompressed. For codecs the device does not decompress ({@link DeviceCodecs}):
 * the device still decodes every page.
 */
public final class HostCodecs {
  /** The codecs parquet-mr decompresses with what Spark ships (zlib, zstd-jni, lz4-java, aircompressor). */
  public static final Set<CompressionCodecName> SUPPORTED = EnumSet.of(CompressionCodecName.GZIP,
      CompressionCodecName.ZSTD, CompressionCodecName.LZ4, CompressionCodecName.LZ4_RAW);

  private HostCodecs() {}

  /**
   * The codecs named in {@code names} (comma-separated, any case; empty for none).
   *
   * @throws IllegalArgumentException for a name that is not one of {@link #SUPPORTED}
   */
  public static Set<CompressionCodecName> parse(String names) {
    return CodecNames.parse(names, SUPPORTED);
  }

  /** One reader thread's decompressors (they keep state, so one per thread), released on close. */
  static final class Inflater implements AutoCloseable {
    private final CodecFactory factory;

    Inflater(Configuration conf) {
      this.factory = new CodecFactory(conf, 0);
    }

    /**
     * Decompresses {@code stored} bytes at host address {@code from} into exactly {@code size} bytes at {@code to}.
     *
     * @throws CorruptChunkException when the codec rejects the bytes or they inflate to another size
     */
    void inflate(CompressionCodecName codec, long from, long stored, long to, long size) {
      if (stored == 0 && size == 0) return;  // an empty part (page v2 values of an all-null page): nothing stored
      if (stored > Integer.MAX_VALUE || size > Integer.MAX_VALUE) {
        throw new CorruptChunkException("a " + codec + " page past 2 GiB");
      }
      ByteBuffer in = MemoryUtil.directBuffer(from, (int) stored);
      ByteBuffer out = MemoryUtil.directBuffer(to, (int) size);
      BytesInputDecompressor decompressor = factory.getDecompressor(codec);
      try {
        decompressor.decompress(in, (int) stored, out, (int) size);
      } catch (IOException | RuntimeException e) {
        throw new CorruptChunkException("a " + codec + " page does not decompress (" + e.getMessage() + ")");
      }
      if (out.position() != size) {
        throw new CorruptChunkException("a " + codec + " page inflates to " + out.position() + " bytes, its header "
            + "says " + size);
      }
    }

    @Override
    public void close() {
      factory.release();
    }
  }
}
