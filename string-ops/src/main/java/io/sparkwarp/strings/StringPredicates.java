package io.sparkwarp.strings;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.strings.MatchResult;
import io.sparkwarp.kernels.strings.PivotedStrings;
import io.sparkwarp.kernels.strings.StringLayout;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the string predicates of a compiled expression over a device batch: each column is rearranged at most once
 * per layout its matchers need (several predicates on one column share the copy), then every matcher runs. The
 * results, one BOOLEAN column per predicate in order, are the caller's; the layouts are freed here.
 */
public final class StringPredicates {
  private StringPredicates() {}

  /**
   * The match columns of {@code matches} over {@code batch}, in order.
   *
   * @throws IllegalArgumentException when a predicate's column is not a string column of the batch
   */
  public static List<MatchResult> evaluate(Backend backend, DeviceBatch batch, List<ColumnMatch> matches,
      MatchOptions options, DeviceStream stream) {
    Map<Integer, Map<StringLayout, PivotedStrings>> layouts = new HashMap<>();
    List<MatchResult> results = new ArrayList<>(matches.size());
    try {
      for (ColumnMatch m : matches) {
        DeviceColumn column = batch.column(m.column());
        if (!column.type().isVariableWidth()) {
          throw new IllegalArgumentException("string predicate on column " + m.column() + " of type " + column.type());
        }
        long average = column.rowCount() == 0 ? 0 : column.dataBytes() / column.rowCount();
        StringLayout layout = LayoutPolicy.choose(options.layout(), m.matcher(), column.rowCount(),
            column.dataBytes(), (int) matches.stream().filter(other -> other.column() == m.column()
                && !LayoutPolicy.scansPlain(other.matcher(), average)).count());
        PivotedStrings pivoted = layout == StringLayout.PLAIN ? null
            : layouts.computeIfAbsent(m.column(), c -> new EnumMap<>(StringLayout.class))
                .computeIfAbsent(layout, l -> backend.strings().pivot(column, l, stream));
        results.add(backend.strings().match(column, pivoted, m.matcher(), options.refill(), stream));
      }
      return results;
    } catch (RuntimeException e) {
      results.forEach(MatchResult::close);
      throw e;
    } finally {
      layouts.values().forEach(byLayout -> byLayout.values().forEach(PivotedStrings::close));
    }
  }
}
