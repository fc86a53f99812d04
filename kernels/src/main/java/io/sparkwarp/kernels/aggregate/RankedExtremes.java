package io.sparkwarp.kernels.aggregate;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.sort.DeviceSort;
import io.sparkwarp.kernels.sort.SortKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Aggregation with min and max of strings, binaries and 128-bit decimals, which the hash aggregation kernels (64-bit
 * accumulators) do not compute themselves: each such input column is replaced by its rows' ranks in the column's
 * sorted order (Spark's order: unsigned bytes, decimals by value; INT, null where the value is null), the kernels
 * take each group's smallest or largest rank, and the values at those ranks are gathered back. One device sort per
 * column and batch; everything else goes to {@link AggregatePrimitives#aggregate} unchanged.
 */
public final class RankedExtremes {
  private RankedExtremes() {}

  /** {@link AggregatePrimitives#aggregate}, with min and max also over STRING, BINARY and DECIMAL128 inputs. */
  public static AggregateResult aggregate(Backend backend, int rows, List<DeviceColumn> keys,
      List<DeviceColumn> inputs, List<Aggregate> aggregates, DeviceStream stream) {
    Map<Integer, Ranked> ranked = new LinkedHashMap<>();  // by input column
    try {
      List<DeviceColumn> rankedInputs = new ArrayList<>(inputs);
      List<Aggregate> onRanks = new ArrayList<>(aggregates);
      for (int a = 0; a < aggregates.size(); a++) {
        Aggregate agg = aggregates.get(a);
        if (!byRank(agg, inputs)) continue;
        Ranked r = ranked.get(agg.input());
        if (r == null) {
          r = Ranked.of(backend, inputs.get(agg.input()), rows, rankedInputs.size(), stream);
          ranked.put(agg.input(), r);
          rankedInputs.add(r.ranks());
        }
        onRanks.set(a, new Aggregate(agg.op(), r.at(), List.of(), DeviceType.INT, agg.mask(), agg.maskValue(), false,
            false));
      }
      if (ranked.isEmpty()) return backend.aggregates().aggregate(rows, keys, inputs, aggregates, stream);
      AggregateResult result = backend.aggregates().aggregate(rows, keys, rankedInputs, onRanks, stream);
      try {
        return valuesAtRanks(backend, result, rows, keys.size(), inputs, aggregates, ranked, stream);
      } catch (RuntimeException e) {
        result.close();
        throw e;
      }
    } finally {
      ranked.values().forEach(Ranked::close);
    }
  }

  /** Whether {@code agg} is a min or max the kernels leave to ranks: of variable-width or 128-bit values. */
  private static boolean byRank(Aggregate agg, List<DeviceColumn> inputs) {
    if (agg.op() != AggregateOp.MIN && agg.op() != AggregateOp.MAX || agg.input() < 0) return false;
    DeviceType type = inputs.get(agg.input()).type();
    return type.isVariableWidth() || type.kind() == DeviceType.Kind.DECIMAL128;
  }

  /** The result with each string extreme's ranks replaced by the values at them (the rank columns closed). */
  private static AggregateResult valuesAtRanks(Backend backend, AggregateResult result, int rows, int keys,
      List<DeviceColumn> inputs, List<Aggregate> aggregates, Map<Integer, Ranked> ranked, DeviceStream stream) {
    DeviceBatch groups = result.groups();
    List<DeviceColumn> columns = new ArrayList<>(groups.columns());
    int n = groups.rowCount();
    for (int a = 0; a < aggregates.size(); a++) {
      Aggregate agg = aggregates.get(a);
      if (!byRank(agg, inputs)) continue;
      DeviceColumn positions = columns.get(keys + a);
      Ranked r = ranked.get(agg.input());
      DeviceBatch values;
      try (DeviceBuffer rowIds = backend.allocate(4L * Math.max(1, n), stream)) {
        backend.sorts().rowsAt(positions, r.order(), rows, rowIds, stream);
        values = backend.joins().gather(new DeviceBatch(List.of(inputs.get(agg.input())), rows), rowIds, n, stream);
      }
      columns.set(keys + a, values.column(0));
      positions.close();
    }
    return new AggregateResult(new DeviceBatch(columns, n), result.overflowed());
  }

  /**
   * One column's sorted order and each row's rank in it.
   *
   * @param at the rank column's index among the aggregation's inputs
   */
  private record Ranked(DeviceBuffer order, DeviceColumn ranks, int at) implements AutoCloseable {
    static Ranked of(Backend backend, DeviceColumn values, int rows, int at, DeviceStream stream) {
      DeviceBuffer order = DeviceSort.order(backend, new DeviceBatch(List.of(values), rows),
          List.of(new SortKey(0, true, false)), stream);
      DeviceColumn ranks = null;
      try {
        ranks = DeviceColumn.allocate(backend, DeviceType.INT, rows, 0, stream);
        backend.sorts().ranks(order, rows, ranks.data(), stream);
        // a null value has a null rank, which min and max skip (a group of nulls gets null)
        backend.copyDeviceToDevice(values.validity(), 0, ranks.validity(), 0,
            Math.min(values.validity().size(), ranks.validity().size()), stream);
        return new Ranked(order, ranks, at);
      } catch (RuntimeException e) {
        Closeables.closeAll(Arrays.asList(order, ranks));
        throw e;
      }
    }

    @Override
    public void close() {
      order.close();
      ranks.close();
    }
  }
}
