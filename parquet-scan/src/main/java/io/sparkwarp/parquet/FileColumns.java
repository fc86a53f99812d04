package io.sparkwarp.parquet;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The file's columns for the scan's columns, matched by top-level name as Spark's reader matches them: exactly when
 * case-sensitive, else ignoring case (a name that matches several fields is ambiguous, as Spark says). A column the
 * file lacks (a table whose schema grew after the file was written) reads as nulls, as in Spark.
 */
final class FileColumns {
  private FileColumns() {}

  /**
   * One descriptor per scan column, in order; null where the file lacks the column.
   *
   * @throws UnsupportedParquetException naming the first column the device cannot read from this file
   */
  static List<ColumnDescriptor> resolve(MessageType schema, List<ScanColumn> columns, boolean caseSensitive) {
    List<ColumnDescriptor> out = new ArrayList<>();
    for (ScanColumn c : columns) {
      Type field = null;
      for (Type f : schema.getFields()) {
        boolean same = caseSensitive ? f.getName().equals(c.name())
            : f.getName().toLowerCase(Locale.ROOT).equals(c.name().toLowerCase(Locale.ROOT));
        if (!same) continue;
        if (field != null) throw new UnsupportedParquetException("column " + c.name() + " matches several fields");
        field = f;
      }
      if (field == null) {
        out.add(null);
        continue;
      }
      if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
        throw new UnsupportedParquetException("column " + c.name() + " is nested or repeated");
      }
      ColumnMapping.whyNot(field.asPrimitiveType(), c.type()).ifPresent(why -> {
        throw new UnsupportedParquetException("column " + c.name() + ": " + why);
      });
      out.add(schema.getColumnDescription(new String[] {field.getName()}));
    }
    return out;
  }
}
