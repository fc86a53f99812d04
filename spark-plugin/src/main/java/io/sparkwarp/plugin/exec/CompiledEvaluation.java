package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.strings.MatchResult;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.strings.StringPredicates;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Runs compiled expressions over a device batch: first their string predicates (string-ops matchers), whose
 * BOOLEAN columns the program reads after the batch's own columns, then the program in one launch.
 */
final class CompiledEvaluation {
  private CompiledEvaluation() {}

  /** The rows of {@code input} the predicate keeps, with {@code input}'s columns; {@code input} stays open. */
  static DeviceBatch filter(TaskGpu gpu, CompiledExpressions compiled, DeviceBatch input, StringMatching strings) {
    DeviceBatch kept = withMatches(gpu, compiled, input, strings,
        extended -> gpu.backend().expressions().filter(compiled.program(), extended, gpu.stream()));
    if (kept.columnCount() == input.columnCount()) return kept;
    // the filter also compacted the match columns: nobody reads them
    List<DeviceColumn> columns = kept.columns();
    columns.subList(input.columnCount(), columns.size()).forEach(DeviceColumn::close);
    return new DeviceBatch(columns.subList(0, input.columnCount()), kept.rowCount());
  }

  /** The program's outputs over every row of {@code input}, which stays open. */
  static DeviceBatch project(TaskGpu gpu, CompiledExpressions compiled, DeviceBatch input, StringMatching strings) {
    return withMatches(gpu, compiled, input, strings, extended -> new DeviceBatch(
        gpu.backend().expressions().project(compiled.program(), extended, gpu.stream()), input.rowCount()));
  }

  private static DeviceBatch withMatches(TaskGpu gpu, CompiledExpressions compiled, DeviceBatch input,
      StringMatching strings, Function<DeviceBatch, DeviceBatch> body) {
    if (compiled.stringMatches().isEmpty()) return body.apply(input);
    List<MatchResult> results = StringPredicates.evaluate(gpu.backend(), input, compiled.stringMatches(),
        strings.options(), gpu.stream());
    try {
      strings.record(results);
      List<DeviceColumn> columns = new ArrayList<>(input.columns());
      results.forEach(r -> columns.add(r.matches()));
      // not closed: it shares the input's columns, and the match columns are closed below
      return body.apply(new DeviceBatch(columns, input.rowCount()));
    } finally {
      results.forEach(MatchResult::close);
    }
  }
}
