package io.sparkwarp.parquet;

import java.io.Serializable;
import java.util.EnumSet;
import java.util.Set;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * How a scan reads.
 *
 * @param batchBytes uncompressed bytes of the needed column chunks gathered into one batch (a larger row group makes
 *     a batch of its own)
 * @param readerThreads threads of an executor that read column chunks (the first scan of the JVM sizes the pool)
 * @param caseSensitive whether column names match the file's exactly (spark.sql.caseSensitive)
 * @param rowGroups what row groups are pruned by ({@link RowGroupPredicate#NONE}: none)
 * @param deviceCodecs codecs decompressed on the device ({@link DeviceCodecs})
 * @param hostCodecs codecs not in {@code deviceCodecs} decompressed on CPU threads before the upload
 *     ({@link HostCodecs})
 */
public record ScanSettings(long batchBytes, int readerThreads, boolean caseSensitive, RowGroupPredicate rowGroups,
    Set<CompressionCodecName> deviceCodecs, Set<CompressionCodecName> hostCodecs) implements Serializable {
  public ScanSettings {
    deviceCodecs = copy(deviceCodecs);
    hostCodecs = copy(hostCodecs);
  }

  private static Set<CompressionCodecName> copy(Set<CompressionCodecName> codecs) {
    return codecs.isEmpty() ? EnumSet.noneOf(CompressionCodecName.class) : EnumSet.copyOf(codecs);
  }
}
