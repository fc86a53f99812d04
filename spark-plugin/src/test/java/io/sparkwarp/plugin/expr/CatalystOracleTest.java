package io.sparkwarp.plugin.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.kernels.testing.BackendTestBase;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.InterpretedMutableProjection;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The strongest oracle for Spark semantics: random Catalyst expressions over random rows (nulls, NaN, -0.0,
 * extremes, decimals, multi-byte strings and their substrings), compiled and run on the host backend (string
 * predicates and substrings included), against Catalyst's own interpreted evaluation row by row, in both ANSI modes.
 * Where Spark throws, the program must fail at the same first row with the same exception (class and message, via
 * SparkErrors).
 */
class CatalystOracleTest extends BackendTestBase {
  private static final int ROWS = 200;
  private static final int EXPRESSIONS = 400;

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void randomExpressionsMatchCatalyst(boolean ansi) {
    Random rnd = new Random(ansi ? 7 : 11);
    RandomCatalyst gen = new RandomCatalyst(rnd, ansi);
    List<Attribute> input = gen.input();
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < ROWS; r++) {
      Object[] row = new Object[input.size()];
      for (int c = 0; c < row.length; c++) row[c] = gen.value(input.get(c).dataType());
      rows.add(row);
    }
    ExpressionSettings settings = new ExpressionSettings(ansi, "UTC", f -> true);
    int compiled = 0;
    int raised = 0;
    try (DeviceBatch batch = upload(input, rows)) {
      for (int i = 0; i < EXPRESSIONS; i++) {
        Expression e = gen.expression();
        CompiledExpressions c = ExpressionCompiler.compileProjection(List.of(RandomCatalyst.alias(e)), input, settings);
        if (!c.supported()) {
          assertTrue(!c.reasons().isEmpty());
          continue;
        }
        compiled++;
        if (check(e, c, input, rows, batch)) raised++;
      }
    }
    assertTrue(compiled > EXPRESSIONS / 2, "only " + compiled + " of " + EXPRESSIONS + " expressions compiled");
    assertTrue(!ansi || raised > 10, "only " + raised + " expressions raised errors in ANSI mode");
  }

  /** Compares one compiled expression with Catalyst; returns whether it raised an error. */
  private boolean check(Expression e, CompiledExpressions c, List<Attribute> input, List<Object[]> rows,
      DeviceBatch batch) {
    String what = e.toString();
    InterpretedMutableProjection spark = new InterpretedMutableProjection(
        CollectionConverters.asScala(List.of(e)).toSeq(), CollectionConverters.asScala(input).toSeq());
    List<Object> expected = new ArrayList<>();
    RuntimeException sparkError = null;
    int errorRow = -1;
    for (int r = 0; r < rows.size(); r++) {
      try {
        InternalRow out = spark.apply(new GenericInternalRow(rows.get(r)));
        expected.add(out.isNullAt(0) ? null : out.get(0, e.dataType()));
      } catch (RuntimeException ex) {
        sparkError = ex;
        errorRow = r;
        break;
      }
    }
    List<Object> actual;
    try {
      actual = run(c, batch, e.dataType());
    } catch (ExpressionErrorException ex) {
      if (sparkError == null) fail(what + ": the GPU raised " + ex.getMessage() + " where Spark did not");
      assertEquals(errorRow, ex.row(), what + ": first failing row");
      RuntimeException ours = c.toSparkException(ex);
      assertEquals(sparkError.getClass(), ours.getClass(), what + ": " + sparkError.getMessage());
      assertEquals(sparkError.getMessage(), ours.getMessage(), what);
      return true;
    }
    if (sparkError != null) fail(what + ": Spark raised " + sparkError + " at row " + errorRow + ", the GPU did not");
    for (int r = 0; r < rows.size(); r++) {
      assertSameValue(expected.get(r), actual.get(r), e.dataType(), what + " at row " + r + " " + row(rows.get(r)));
    }
    return false;
  }

  private static String row(Object[] values) {
    return java.util.Arrays.toString(values);
  }

  private static void assertSameValue(Object spark, Object ours, DataType type, String what) {
    if (spark == null || ours == null) {
      assertEquals(spark, ours, what);
    } else if (type instanceof FloatType) {
      float x = (Float) spark;
      float y = (Float) ours;
      assertTrue(Float.isNaN(x) ? Float.isNaN(y) : Float.floatToIntBits(x) == Float.floatToIntBits(y),
          what + ": " + x + " vs " + y);
    } else if (type instanceof DoubleType) {
      double x = (Double) spark;
      double y = (Double) ours;
      assertTrue(Double.isNaN(x) ? Double.isNaN(y) : Double.doubleToLongBits(x) == Double.doubleToLongBits(y),
          what + ": " + x + " vs " + y);
    } else if (type instanceof DecimalType) {
      assertEquals(((Decimal) spark).toJavaBigDecimal(), ours, what);
    } else {
      assertEquals(spark, ours, what);
    }
  }

  /** The program's one output over the batch, as Spark's internal values (decimals as BigDecimal). */
  private List<Object> run(CompiledExpressions c, DeviceBatch batch, DataType type) {
    List<DeviceColumn> columns = c.matchingProgram().project(backend, batch, stream);
    try (DeviceBatch out = new DeviceBatch(columns, batch.rowCount())) {
      List<FieldVector> vectors = ArrowDownload.begin(backend, out, List.of("out"), pageable, stream).complete();
      try {
        FieldVector v = vectors.get(0);
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < v.getValueCount(); i++) {
          values.add(v.isNull(i) ? null : v instanceof TimeStampVector t ? (Object) t.get(i)
              : v instanceof VarCharVector s ? UTF8String.fromBytes(s.get(i)) : v.getObject(i));
        }
        return values;
      } finally {
        Closeables.closeAll(vectors);
      }
    }
  }

  /** Rows of Spark internal values as a device batch. */
  private DeviceBatch upload(List<Attribute> input, List<Object[]> rows) {
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int c = 0; c < input.size(); c++) {
        var type = SparkTypes.deviceType(input.get(c).dataType(), "UTC").orElseThrow();
        FieldVector v = new Field(input.get(c).name(), FieldType.nullable(type.toArrow()), null).createVector(pageable);
        vectors.add(v);
        v.allocateNew();
        for (int r = 0; r < rows.size(); r++) set(v, r, rows.get(r)[c]);
        v.setValueCount(rows.size());
      }
      DeviceBatch batch = ArrowUpload.upload(backend, vectors, stream);
      stream.synchronize();
      return batch;
    } finally {
      Closeables.closeAll(vectors);
    }
  }

  private static void set(FieldVector v, int i, Object x) {
    if (x == null) {
      while (i >= v.getValueCapacity()) v.reAlloc();
      v.setNull(i);
    } else if (v instanceof BitVector b) {
      b.setSafe(i, (Boolean) x ? 1 : 0);
    } else if (v instanceof TinyIntVector b) {
      b.setSafe(i, (Byte) x);
    } else if (v instanceof SmallIntVector s) {
      s.setSafe(i, (Short) x);
    } else if (v instanceof IntVector n) {
      n.setSafe(i, (Integer) x);
    } else if (v instanceof DateDayVector d) {
      d.setSafe(i, (Integer) x);
    } else if (v instanceof BigIntVector l) {
      l.setSafe(i, (Long) x);
    } else if (v instanceof TimeStampVector t) {
      t.setSafe(i, (Long) x);
    } else if (v instanceof Float4Vector f) {
      f.setSafe(i, (Float) x);
    } else if (v instanceof Float8Vector d) {
      d.setSafe(i, (Double) x);
    } else if (v instanceof DecimalVector d) {
      d.setSafe(i, ((Decimal) x).toJavaBigDecimal());
    } else {
      ((VarCharVector) v).setSafe(i, ((UTF8String) x).getBytes());
    }
  }
}
