package io.sparkwarp.kernels.aggregate;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.Closeables;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/** Runs aggregations from Arrow vectors and reads their groups back as comparable rows. */
final class AggregateTesting {
  private AggregateTesting() {}

  /**
   * The groups of aggregating {@code keys} and {@code inputs} on {@code backend} (through {@link RankedExtremes}, so
   * min and max take strings too), as rows of canonical strings sorted, followed by one row of the overflow flags.
   */
  static List<List<String>> aggregate(Backend backend, List<FieldVector> keys, List<FieldVector> inputs,
      List<Aggregate> aggregates, BufferAllocator allocator) {
    List<DeviceColumn> keyColumns = new ArrayList<>();
    List<DeviceColumn> inputColumns = new ArrayList<>();
    try (DeviceStream stream = backend.newStream()) {
      try {
        for (FieldVector v : keys) keyColumns.add(ArrowUpload.upload(backend, v, stream));
        for (FieldVector v : inputs) inputColumns.add(ArrowUpload.upload(backend, v, stream));
        try (AggregateResult result = RankedExtremes.aggregate(backend, rows(keys, inputs), keyColumns, inputColumns,
            aggregates, stream)) {
          List<String> names = new ArrayList<>();
          for (int i = 0; i < result.groups().columnCount(); i++) names.add("c" + i);
          List<FieldVector> vectors;
          try (ArrowDownload d = ArrowDownload.begin(backend, result.groups(), names, allocator, stream)) {
            vectors = d.complete();
          }
          try {
            List<List<String>> rows = rows(vectors, result.groups().rowCount());
            List<String> flags = new ArrayList<>();
            for (int i = 0; i < aggregates.size(); i++) flags.add("overflow=" + result.anyOverflow(i));
            rows.add(flags);
            return rows;
          } finally {
            Closeables.closeAll(vectors);
          }
        }
      } finally {
        Closeables.closeAll(keyColumns);
        Closeables.closeAll(inputColumns);
      }
    }
  }

  /** The rows of {@link AggregatePrimitives#mean} over {@code sums} and {@code counts} as text, then the flag. */
  static List<String> mean(Backend backend, FieldVector sums, FieldVector counts, DeviceType type,
      BufferAllocator allocator) {
    try (DeviceStream stream = backend.newStream();
        DeviceColumn s = ArrowUpload.upload(backend, sums, stream);
        DeviceColumn c = ArrowUpload.upload(backend, counts, stream);
        Mean mean = backend.aggregates().mean(s, c, type, stream);
        DeviceBatch batch = new DeviceBatch(List.of(mean.column()), mean.column().rowCount());
        ArrowDownload d = ArrowDownload.begin(backend, batch, List.of("m"), allocator, stream)) {
      List<FieldVector> vectors = d.complete();
      try {
        List<String> out = new ArrayList<>();
        for (int r = 0; r < s.rowCount(); r++) out.add(canonical(vectors.get(0).getObject(r)));
        out.add("overflow=" + mean.overflowed());
        return out;
      } finally {
        Closeables.closeAll(vectors);
      }
    }
  }

  /** The rows of the vectors (0 without any). */
  private static int rows(List<FieldVector> keys, List<FieldVector> inputs) {
    return !keys.isEmpty() ? keys.get(0).getValueCount() : inputs.isEmpty() ? 0 : inputs.get(0).getValueCount();
  }

  private static List<List<String>> rows(List<FieldVector> vectors, int count) {
    List<List<String>> rows = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      List<String> row = new ArrayList<>();
      for (FieldVector v : vectors) row.add(canonical(v.getObject(r)));
      rows.add(row);
    }
    rows.sort(Comparator.comparing(Object::toString));
    return rows;
  }

  /**
   * A value as text both backends agree on: floats with NaN as one value, -0.0 as 0.0 (the same group; its key may
   * be either) and 12 significant digits (floating sums depend on the order of addition).
   */
  static String canonical(Object o) {
    if (o == null) return "null";
    if (o instanceof Float f) o = f.doubleValue();
    if (o instanceof Double d) {
      if (d.isNaN()) return "NaN";
      return d == 0 ? "0.0" : String.format(Locale.ROOT, "%.11e", d);
    }
    if (o instanceof byte[] b) return Arrays.toString(b);
    if (o instanceof BigDecimal b) return b.toPlainString();
    return o.toString();
  }
}
