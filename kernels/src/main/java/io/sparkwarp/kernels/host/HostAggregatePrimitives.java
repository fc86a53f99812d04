package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.aggregate.Aggregate;
import io.sparkwarp.kernels.aggregate.AggregateOp;
import io.sparkwarp.kernels.aggregate.AggregatePrimitives;
import io.sparkwarp.kernels.aggregate.AggregateResult;
import io.sparkwarp.kernels.aggregate.Mean;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Reference {@link AggregatePrimitives}: rows grouped in a Java map by their key values (floats normalised as Spark
 * groups them), sums in BigInteger, groups in order of first appearance. The oracle the CUDA kernels are tested
 * against; floating min and max use {@link Double#compare}'s order, as the kernels do (NaN last, -0.0 below 0.0).
 */
final class HostAggregatePrimitives implements AggregatePrimitives {
  private final Backend backend;

  HostAggregatePrimitives(Backend backend) {
    this.backend = backend;
  }

  /** One aggregate's state in one group. */
  private static final class Acc {
    long count;
    BigInteger sum = BigInteger.ZERO;
    double floatSum;
    /** Whether a non-null input was seen: sums and extremes are null otherwise. */
    boolean seen;
    /** Whether a null input poisoned a null-poisoned sum. */
    boolean poisoned;
    long bestBits;
    double bestFloat;
  }

  @Override
  public AggregateResult aggregate(int rows, List<DeviceColumn> keys, List<DeviceColumn> inputs,
      List<Aggregate> aggregates, DeviceStream stream) {
    AggregatePrimitives.checkArguments(rows, keys, inputs, aggregates);
    Map<List<Object>, Integer> groupOf = new HashMap<>();
    List<Integer> firstRows = new ArrayList<>();
    List<Acc[]> accs = new ArrayList<>();
    if (keys.isEmpty()) {
      firstRows.add(-1);
      accs.add(newAccs(aggregates.size()));
    }
    for (int r = 0; r < rows; r++) {
      int g = 0;
      if (!keys.isEmpty()) {
        List<Object> key = new ArrayList<>(keys.size());
        for (DeviceColumn c : keys) key.add(keyValue(c, r));
        Integer found = groupOf.get(key);
        if (found == null) {
          found = firstRows.size();
          groupOf.put(key, found);
          firstRows.add(r);
          accs.add(newAccs(aggregates.size()));
        }
        g = found;
      }
      for (int a = 0; a < aggregates.size(); a++) update(aggregates.get(a), inputs, r, accs.get(g)[a]);
    }
    return results(rows, keys, inputs, aggregates, firstRows, accs, stream);
  }

  private static Acc[] newAccs(int n) {
    Acc[] a = new Acc[n];
    for (int i = 0; i < n; i++) a[i] = new Acc();
    return a;
  }

  // ---- Reading values ----

  private static boolean valid(DeviceColumn c, int row) {
    return HostBatchPrimitives.getBit(c.validity().address(), row);
  }

  /** A key as grouping compares it: null, a number (floats normalised), or the bytes. */
  private static Object keyValue(DeviceColumn c, int row) {
    if (!valid(c, row)) return null;
    return switch (c.type().kind()) {
      case FLOAT, DOUBLE -> {
        double d = floating(c, row);
        yield Double.isNaN(d) ? Double.NaN : d == 0 ? 0.0 : d;
      }
      case STRING, BINARY -> ByteBuffer.wrap(bytes(c, row));
      default -> integral(c, row);
    };
  }

  private static byte[] bytes(DeviceColumn c, int row) {
    long offsets = c.offsets().address();
    int start = MemoryUtil.getInt(offsets + 4L * row);
    byte[] b = new byte[MemoryUtil.getInt(offsets + 4L * row + 4) - start];
    for (int i = 0; i < b.length; i++) b[i] = MemoryUtil.getByte(c.data().address() + start + i);
    return b;
  }

  /** An integral, date, timestamp, 64-bit decimal or boolean value as a long. */
  private static long integral(DeviceColumn c, int row) {
    long data = c.data().address();
    return switch (c.type().kind()) {
      case BOOLEAN -> HostBatchPrimitives.getBit(data, row) ? 1 : 0;
      case BYTE -> MemoryUtil.getByte(data + row);
      case SHORT -> MemoryUtil.getShort(data + 2L * row);
      case INT, DATE -> MemoryUtil.getInt(data + 4L * row);
      case LONG, TIMESTAMP, DECIMAL -> MemoryUtil.getLong(data + 8L * row);
      default -> throw new IllegalStateException(c.type() + " is not read as a long");
    };
  }

  private static double floating(DeviceColumn c, int row) {
    long data = c.data().address();
    return c.type().kind() == DeviceType.Kind.FLOAT ? Float.intBitsToFloat(MemoryUtil.getInt(data + 4L * row))
        : Double.longBitsToDouble(MemoryUtil.getLong(data + 8L * row));
  }

  private static BigInteger exact(DeviceColumn c, int row) {
    if (c.type().kind() != DeviceType.Kind.DECIMAL128) return BigInteger.valueOf(integral(c, row));
    long at = c.data().address() + 16L * row;
    return BigInteger.valueOf(MemoryUtil.getLong(at + 8)).shiftLeft(64)
        .or(new BigInteger(Long.toUnsignedString(MemoryUtil.getLong(at))));
  }

  private static boolean isFloating(DeviceType t) {
    return t.kind() == DeviceType.Kind.FLOAT || t.kind() == DeviceType.Kind.DOUBLE;
  }

  // ---- Updating ----

  private static void update(Aggregate a, List<DeviceColumn> inputs, int row, Acc acc) {
    if (a.mask() >= 0) {
      DeviceColumn m = inputs.get(a.mask());
      if (!valid(m, row) || (integral(m, row) != 0) != a.maskValue()) return;
    }
    if (a.op() == AggregateOp.COUNT_ALL) {
      acc.count++;
      return;
    }
    DeviceColumn in = inputs.get(a.input());
    boolean valid = valid(in, row);
    for (int f : a.factors()) valid &= valid(inputs.get(f), row);
    if (!valid) {
      if (a.nullPoisons()) acc.poisoned = true;
      return;
    }
    acc.count++;
    boolean first = !acc.seen;
    acc.seen = true;
    switch (a.op()) {
      case SUM -> {
        if (isFloating(in.type())) {
          acc.floatSum += floating(in, row);
        } else {
          BigInteger v = exact(in, row);
          for (int f : a.factors()) v = v.multiply(exact(inputs.get(f), row));
          acc.sum = acc.sum.add(v);
        }
      }
      case MIN, MAX -> {
        int sign = a.op() == AggregateOp.MIN ? -1 : 1;
        if (isFloating(in.type())) {
          double d = floating(in, row);
          if (first || Integer.signum(Double.compare(d, acc.bestFloat)) == sign) acc.bestFloat = d;
        } else {
          long v = integral(in, row);
          if (first || Long.signum(Long.compare(v, acc.bestBits)) == sign) acc.bestBits = v;
        }
      }
      default -> {}
    }
  }

  @Override
  public Mean mean(DeviceColumn sum, DeviceColumn count, DeviceType resultType, DeviceStream stream) {
    AggregatePrimitives.checkMean(sum, count, resultType);
    int rows = sum.rowCount();
    DeviceColumn out = DeviceColumn.allocate(backend, resultType, rows, 0, stream);
    boolean overflowed = false;
    try {
      backend.fill(out.validity(), 0, out.validity().size(), (byte) 0, stream);
      backend.fill(out.data(), 0, out.data().size(), (byte) 0, stream);
      BigInteger bound = resultType.isDecimal() ? BigInteger.TEN.pow(resultType.precision()) : null;
      for (int r = 0; r < rows; r++) {
        long n = valid(count, r) ? integral(count, r) : 0;
        if (n == 0) continue;
        if (!valid(sum, r)) {
          overflowed = true;
          continue;
        }
        if (bound == null) {
          MemoryUtil.putLong(out.data().address() + 8L * r, Double.doubleToLongBits(floating(sum, r) / n));
        } else {
          BigInteger q = new BigDecimal(exact(sum, r), sum.type().scale())
              .divide(BigDecimal.valueOf(n), resultType.scale(), RoundingMode.HALF_UP).unscaledValue();
          if (q.abs().compareTo(bound) >= 0) {
            overflowed = true;
            continue;
          }
          putDecimal(out, r, q);
        }
        HostBatchPrimitives.setBit(out.validity().address(), r, true);
      }
      return new Mean(out, overflowed);
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  private static void putDecimal(DeviceColumn out, int row, BigInteger unscaled) {
    long data = out.data().address();
    if (out.type().kind() == DeviceType.Kind.DECIMAL) {
      MemoryUtil.putLong(data + 8L * row, unscaled.longValue());
    } else {
      MemoryUtil.putLong(data + 16L * row, unscaled.longValue());
      MemoryUtil.putLong(data + 16L * row + 8, unscaled.shiftRight(64).longValue());
    }
  }

  // ---- Results ----

  private AggregateResult results(int rows, List<DeviceColumn> keys, List<DeviceColumn> inputs,
      List<Aggregate> aggregates, List<Integer> firstRows, List<Acc[]> accs, DeviceStream stream) {
    int groups = firstRows.size();
    List<DeviceColumn> columns = new ArrayList<>();
    boolean[] overflowed = new boolean[aggregates.size()];
    try {
      if (!keys.isEmpty()) {
        int[] first = firstRows.stream().mapToInt(Integer::intValue).toArray();
        // a view of the caller's key columns, not closed: gather only reads them
        DeviceBatch keyView = new DeviceBatch(keys, rows);
        columns.addAll(HostRowGather.gather(backend, keyView, first, stream).columns());  // owned by columns now
      }
      for (int a = 0; a < aggregates.size(); a++) {
        Aggregate agg = aggregates.get(a);
        DeviceColumn out = DeviceColumn.allocate(backend, agg.resultType(), groups, 0, stream);
        columns.add(out);
        backend.fill(out.validity(), 0, out.validity().size(), (byte) 0, stream);
        backend.fill(out.data(), 0, out.data().size(), (byte) 0, stream);
        DeviceType inputType = agg.input() < 0 ? null : inputs.get(agg.input()).type();
        for (int g = 0; g < groups; g++) {
          overflowed[a] |= write(agg, inputType, accs.get(g)[a], out, g);
        }
      }
      return new AggregateResult(new DeviceBatch(columns, groups), overflowed);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }

  /** Writes one group's result; returns whether it overflowed (or was poisoned). */
  private static boolean write(Aggregate a, DeviceType inputType, Acc acc, DeviceColumn out, int g) {
    long data = out.data().address();
    switch (a.op()) {
      case COUNT_ALL, COUNT -> {
        MemoryUtil.putLong(data + 8L * g, acc.count);
        HostBatchPrimitives.setBit(out.validity().address(), g, true);
        return false;
      }
      case SUM -> {
        if (acc.poisoned) return true;
        if (!acc.seen && !a.emptyIsIdentity()) return false;
        return writeSum(a.resultType(), inputType, acc, out, g);
      }
      default -> {
        if (!acc.seen && !a.emptyIsIdentity()) return false;
        if (!acc.seen) acc.bestBits = a.op() == AggregateOp.MIN ? 1 : 0;  // boolean identities: true, false
        HostBatchPrimitives.setBit(out.validity().address(), g, true);
        switch (a.resultType().kind()) {
          case BOOLEAN -> HostBatchPrimitives.setBit(data, g, acc.bestBits != 0);
          case BYTE -> MemoryUtil.putByte(data + g, (byte) acc.bestBits);
          case SHORT -> MemoryUtil.putShort(data + 2L * g, (short) acc.bestBits);
          case INT, DATE -> MemoryUtil.putInt(data + 4L * g, (int) acc.bestBits);
          case FLOAT -> MemoryUtil.putInt(data + 4L * g, Float.floatToIntBits((float) acc.bestFloat));
          case DOUBLE -> MemoryUtil.putLong(data + 8L * g, Double.doubleToLongBits(acc.bestFloat));
          default -> MemoryUtil.putLong(data + 8L * g, acc.bestBits);
        }
        return false;
      }
    }
  }

  private static boolean writeSum(DeviceType result, DeviceType inputType, Acc acc, DeviceColumn out, int g) {
    long data = out.data().address();
    boolean overflow = false;
    switch (result.kind()) {
      case LONG -> {
        overflow = acc.sum.bitLength() > 63;
        MemoryUtil.putLong(data + 8L * g, acc.sum.longValue());
      }
      case DOUBLE -> MemoryUtil.putLong(data + 8L * g, Double.doubleToLongBits(
          isFloating(inputType) ? acc.floatSum : acc.sum.doubleValue()));
      default -> {  // decimals
        if (acc.sum.abs().compareTo(BigInteger.TEN.pow(result.precision())) >= 0) return true;
        putDecimal(out, g, acc.sum);
      }
    }
    HostBatchPrimitives.setBit(out.validity().address(), g, true);
    return overflow;
  }
}
