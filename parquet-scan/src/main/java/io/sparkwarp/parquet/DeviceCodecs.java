package io.sparkwarp.parquet;

import io.sparkwarp.kernels.parquet.CompressedBlocks;
import java.util.EnumSet;
import java.util.Set;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Codecs whose pages cross PCIe as stored and are decompressed on the device ({@code parquet.cu}, a warp per page);
 * uncompressed pages are always copied there. Which of them the device takes is a setting: a codec left out goes to
 * the reader threads ({@link HostCodecs}) when they take it, else the scan stays on Spark's reader.
 */
public final class DeviceCodecs {
  /**
   * The codecs the device can decompress: Snappy, LZ4_RAW, LZ4 in the Hadoop framing parquet-mr writes, and ZSTD
   * (taken only when the setting names it: its device decoder is not measured yet).
   */
  public static final Set<CompressionCodecName> SUPPORTED = EnumSet.of(CompressionCodecName.SNAPPY,
      CompressionCodecName.LZ4_RAW, CompressionCodecName.LZ4, CompressionCodecName.ZSTD);

  private DeviceCodecs() {}

  /**
   * The codecs named in {@code names} (comma-separated, any case; empty for none).
   *
   * @throws IllegalArgumentException for a name that is not one of {@link #SUPPORTED}
   */
  public static Set<CompressionCodecName> parse(String names) {
    return CodecNames.parse(names, SUPPORTED);
  }

  /** Whether the device decompresses pages of {@code codec} when it takes {@code deviceCodecs}. */
  static boolean onDevice(CompressionCodecName codec, Set<CompressionCodecName> deviceCodecs) {
    return codec == CompressionCodecName.UNCOMPRESSED || deviceCodecs.contains(codec);
  }

  /** The block codec of a page of {@code codec} the device decompresses. */
  static CompressedBlocks.Codec blockCodec(CompressionCodecName codec) {
    return CompressedBlocks.Codec.valueOf(codec.name());
  }
}
