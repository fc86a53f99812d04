package io.sparkwarp.parquet;

import io.sparkwarp.kernels.batch.DeviceType;
import java.io.Serializable;

/**
 * A column the scan produces: its name in the query (matched to the file's top-level fields as Spark matches them)
 * and the device type Spark's type maps to.
 */
public record ScanColumn(String name, DeviceType type) implements Serializable {}
