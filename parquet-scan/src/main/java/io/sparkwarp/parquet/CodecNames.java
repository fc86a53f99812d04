package io.sparkwarp.parquet;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/** Lists of codec names in settings ({@link DeviceCodecs}, {@link HostCodecs}). */
final class CodecNames {
  private CodecNames() {}

  /**
   * The codecs named in {@code names} (comma-separated, any case; empty for none).
   *
   * @throws IllegalArgumentException for a name that is not one of {@code allowed}
   */
  static Set<CompressionCodecName> parse(String names, Set<CompressionCodecName> allowed) {
    Set<CompressionCodecName> codecs = EnumSet.noneOf(CompressionCodecName.class);
    for (String name : names.split(",")) {
      if (name.isBlank()) continue;
      CompressionCodecName codec = CompressionCodecName.valueOf(name.strip().toUpperCase(Locale.ROOT));
      if (!allowed.contains(codec)) throw new IllegalArgumentException(codec + " is not one of " + allowed);
      codecs.add(codec);
    }
    return codecs;
  }
}
