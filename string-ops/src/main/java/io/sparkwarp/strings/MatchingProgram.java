package io.sparkwarp.strings;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
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
 * An expression program together with the string columns it reads that the string kernels derive from a batch's
 * columns: the string predicates' BOOLEAN match columns, then the STRING substring columns, in that order after the
 * batch's columns (match i is input column batch columns + i, substring j follows the last match). Evaluating it
 * computes them first ({@link StringPredicates}, {@code StringPrimitives.substring}), then runs the program in one
 * launch over the batch's columns followed by them; they are freed afterwards.
 *
 * @param report receives each batch's match results (layouts, lane counters) before they are freed
 */
public record MatchingProgram(ExprProgram program, List<ColumnMatch> matches, List<ColumnSubstring> substrings,
    MatchOptions options, Consumer<List<MatchResult>> report) {
  public MatchingProgram {
    matches = List.copyOf(matches);
    substrings = List.copyOf(substrings);
    if (program.inputTypes().size() < matches.size() + substrings.size()) {
      throw new IllegalArgumentException("a program over " + program.inputTypes().size() + " inputs reads "
          + matches.size() + " match columns and " + substrings.size() + " substring columns");
    }
  }

  /** A program without derived string columns. */
  public static MatchingProgram plain(ExprProgram program) {
    return new MatchingProgram(program, List.of(), List.of(), MatchOptions.DEFAULT, results -> {});
  }

  /** The types of the batch columns the program reads: its inputs less the derived columns that follow them. */
  public List<DeviceType> columnTypes() {
    List<DeviceType> inputs = program.inputTypes();
    return inputs.subList(0, inputs.size() - matches.size() - substrings.size());
  }

  /** The program's outputs over every row of {@code input}, which stays open. */
  public List<DeviceColumn> project(Backend backend, DeviceBatch input, DeviceStream stream) {
    return withDerived(backend, input, stream, b -> backend.expressions().project(program, b, stream));
  }

  /** The rows of {@code input} the predicate keeps, with {@code input}'s columns; {@code input} stays open. */
  public DeviceBatch filter(Backend backend, DeviceBatch input, DeviceStream stream) {
    // the derived columns are the predicate's inputs only: not gathered
    return withDerived(backend, input, stream,
        b -> backend.expressions().filter(program, b, input.columnCount(), stream));
  }

  private <T> T withDerived(Backend backend, DeviceBatch input, DeviceStream stream, Function<DeviceBatch, T> body) {
    if (matches.isEmpty() && substrings.isEmpty()) return body.apply(input);
    List<MatchResult> results = StringPredicates.evaluate(backend, input, matches, options, stream);
    List<DeviceColumn> derived = new ArrayList<>();
    try {
      report.accept(results);
      for (ColumnSubstring s : substrings) {
        derived.add(backend.strings().substring(input.column(s.column()), s.pos(), s.len(), stream));
      }
      List<DeviceColumn> columns = new ArrayList<>(input.columns());
      results.forEach(r -> columns.add(r.matches()));
      columns.addAll(derived);
      // not closed: it shares the input's columns, and the derived ones are closed below
      return body.apply(new DeviceBatch(columns, input.rowCount()));
    } finally {
      results.forEach(MatchResult::close);
      Closeables.closeAll(derived);
    }
  }
}
