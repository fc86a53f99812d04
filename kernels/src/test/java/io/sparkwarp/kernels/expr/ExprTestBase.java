package io.sparkwarp.kernels.expr;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Small batches from Java values, programs run on them, and results back as Java values (Arrow's getObject). */
abstract class ExprTestBase extends BackendTestBase {
  /** A vector of {@code type} holding {@code values} (null for SQL null): Arrow's setSafe types per kind. */
  FieldVector vector(DeviceType type, Object... values) {
    FieldVector v = new Field("c", FieldType.nullable(type.toArrow()), null).createVector(pageable);
    v.allocateNew();
    for (int i = 0; i < values.length; i++) {
      Object x = values[i];
      if (x == null) {
        while (i >= v.getValueCapacity()) v.reAlloc();
        v.setNull(i);
        continue;
      }
      switch (type.kind()) {
        case BOOLEAN -> ((org.apache.arrow.vector.BitVector) v).setSafe(i, (Boolean) x ? 1 : 0);
        case BYTE -> ((org.apache.arrow.vector.TinyIntVector) v).setSafe(i, (Byte) x);
        case SHORT -> ((org.apache.arrow.vector.SmallIntVector) v).setSafe(i, (Short) x);
        case INT -> ((org.apache.arrow.vector.IntVector) v).setSafe(i, (Integer) x);
        case DATE -> ((org.apache.arrow.vector.DateDayVector) v).setSafe(i, (Integer) x);
        case LONG -> ((org.apache.arrow.vector.BigIntVector) v).setSafe(i, (Long) x);
        case TIMESTAMP -> ((org.apache.arrow.vector.TimeStampVector) v).setSafe(i, (Long) x);
        case FLOAT -> ((org.apache.arrow.vector.Float4Vector) v).setSafe(i, (Float) x);
        case DOUBLE -> ((org.apache.arrow.vector.Float8Vector) v).setSafe(i, (Double) x);
        case DECIMAL, DECIMAL128 -> ((org.apache.arrow.vector.DecimalVector) v).setSafe(i,
            new java.math.BigDecimal((String) x));
        case STRING -> ((org.apache.arrow.vector.VarCharVector) v).setSafe(i, ((String) x).getBytes(
            StandardCharsets.UTF_8));
        case BINARY -> ((org.apache.arrow.vector.VarBinaryVector) v).setSafe(i, (byte[]) x);
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  /** The vectors uploaded as one batch; the vectors are closed. */
  DeviceBatch batch(FieldVector... vectors) {
    try {
      DeviceBatch b = ArrowUpload.upload(backend, List.of(vectors), stream);
      stream.synchronize();
      return b;
    } finally {
      Closeables.closeAll(List.of(vectors));
    }
  }

  /** Every output of {@code program} over {@code input}, column by column, as Arrow's Java values. */
  List<List<Object>> project(ExprProgram program, DeviceBatch input) {
    List<DeviceColumn> columns = backend.expressions().project(program, input, stream);
    try (DeviceBatch out = new DeviceBatch(columns, input.rowCount())) {
      return values(out);
    }
  }

  /** The first output of {@code program} over {@code input}. */
  List<Object> eval(ExprProgram program, DeviceBatch input) {
    return project(program, input).get(0);
  }

  /** Downloads a batch as Java values, column by column. */
  List<List<Object>> values(DeviceBatch batch) {
    List<String> names = Collections.nCopies(batch.columnCount(), "c");
    List<FieldVector> vectors = ArrowDownload.begin(backend, batch, names, pageable, stream).complete();
    try {
      List<List<Object>> columns = new ArrayList<>();
      for (FieldVector v : vectors) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < v.getValueCount(); i++) values.add(v.getObject(i));
        columns.add(values);
      }
      return columns;
    } finally {
      Closeables.closeAll(vectors);
    }
  }

  /** A list that may hold nulls (List.of may not). */
  static List<Object> list(Object... values) {
    return java.util.Arrays.asList(values);
  }
}
