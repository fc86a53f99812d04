package io.sparkwarp.strings;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.strings.MatchResult;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An expression program together with the string predicates it reads: match i is the program's input column
 * (batch columns + i). Evaluating it runs the matchers first ({@link StringPredicates}), then the program in one
 * launch, over the batch's columns followed by the match columns; the match columns are freed afterwards.
 *
 * @param report receives each batch's match results (layouts, lane counters) before they are freed
 */
public record MatchingProgram(ExprProgram program, List<ColumnMatch> matches, MatchOptions options,
    Consumer<List<MatchResult>> report) {
  public MatchingProgram {
    matches = List.copyOf(matches);
    if (program.inputTypes().size() < matches.size()) {
      throw new IllegalArgumentException("a program over " + program.inputTypes().size() + " inputs reads "
          + matches.size() + " match columns");
    }
  }

  /** A program without string predicates. */
  public static MatchingProgram plain(ExprProgram program) {
    return new MatchingProgram(program, List.of(), MatchOptions.DEFAULT, results -> {});
  }

  /** The types of the batch columns the program reads: its inputs less the match columns that follow them. */
  public List<DeviceType> columnTypes() {
    List<DeviceType> inputs = program.inputTypes();
    return inputs.subList(0, inputs.size() - matches.size());
  }

  /** The program's outputs over every row of {@code input}, which stays open. */
  public List<DeviceColumn> project(Backend backend, DeviceBatch input, DeviceStream stream) {
    return withMatches(backend, input, stream, b -> backend.expressions().project(program, b, stream));
  }

  /** The rows of {@code input} the predicate keeps, with {@code input}'s columns; {@code input} stays open. */
  public DeviceBatch filter(Backend backend, DeviceBatch input, DeviceStream stream) {
    // the match columns are the predicate's inputs only: not gathered
    return withMatches(backend, input, stream,
        b -> backend.expressions().filter(program, b, input.columnCount(), stream));
  }

  private <T> T withMatches(Backend backend, DeviceBatch input, DeviceStream stream, Function<DeviceBatch, T> body) {
    if (matches.isEmpty()) return body.apply(input);
    List<MatchResult> results = StringPredicates.evaluate(backend, input, matches, options, stream);
    try {
      report.accept(results);
      List<DeviceColumn> columns = new ArrayList<>(input.columns());
      results.forEach(r -> columns.add(r.matches()));
      // not closed: it shares the input's columns, and the match columns are closed below
      return body.apply(new DeviceBatch(columns, input.rowCount()));
    } finally {
      results.forEach(MatchResult::close);
    }
  }
}
