package io.sparkwarp.kernels.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;

/**
 * Random programs on the host backend: every generated program builds, runs to values or to an
 * ExpressionErrorException (nothing else), and a filter keeps exactly the rows its predicate projects as true.
 */
class HostRandomProgramsTest extends ExprTestBase {
  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void randomProgramsRunAndFiltersAgreeWithTheirPredicates() {
    Random rnd = new Random(42);
    List<DeviceType> types = RandomInputs.types();
    RandomPrograms programs = new RandomPrograms(rnd, types);
    List<FieldVector> vectors = RandomInputs.vectors(types, 500, rnd, pageable);
    try (DeviceBatch input = ArrowUpload.upload(backend, vectors, stream)) {
      for (int i = 0; i < 300; i++) {
        try {
          Closeables.closeAll(backend.expressions().project(programs.projection(), input, stream));
        } catch (ExpressionErrorException expected) {
          // ANSI instructions raise on some random rows
        }
        ExprProgram predicate = programs.predicate();
        try {
          List<Object> projected = eval(predicate, input);
          long trues = projected.stream().filter(Boolean.TRUE::equals).count();
          try (DeviceBatch kept = backend.expressions().filter(predicate, input, stream)) {
            assertEquals(trues, kept.rowCount(), predicate.toString());
          }
        } catch (ExpressionErrorException expected) {
          // as above
        }
      }
    } finally {
      Closeables.closeAll(vectors);
    }
  }
}
