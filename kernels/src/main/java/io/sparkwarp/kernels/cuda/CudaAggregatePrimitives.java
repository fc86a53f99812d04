package io.sparkwarp.kernels.cuda;

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
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceReadback;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * {@link AggregatePrimitives} as launches of {@code aggregate.cu}: key normalisation, the group table (insert, slot
 * numbering by scan, first rows), accumulation in the mode the group count calls for, finalisation, and the gather
 * of the groups' keys. Two read-backs: the group count and the overflow flags.
 */
final class CudaAggregatePrimitives implements AggregatePrimitives {
  /** Most copies of its accumulators a block keeps in shared memory: one per lane (aggregate.cu). */
  private static final int MAX_COPIES = 32;
  /** Dynamic shared memory a block may use without opting in. */
  private static final int SHARED_LIMIT = 48 * 1024;
  /** Bytes of aggregate_spec.cuh's AggSpec and of AggSpecs. */
  private static final int SPEC_BYTES = 136;
  private static final int SPECS_BYTES = MAX_AGGREGATES * SPEC_BYTES + 8;

  /** How aggregate_spec.cuh reads an input and writes a result (its Layout enum, by ordinal). */
  private enum Layout { NONE, BOOL, INT8, INT16, INT32, INT64, INT128, FLOAT, DOUBLE }

  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaRowGather gather;
  private final CudaKernel keyToInt64;
  private final CudaKernel insert;
  private final CudaKernel slotFlags;
  private final CudaKernel firstRows;
  private final CudaKernel init;
  private final CudaKernel accumulate;
  private final CudaKernel accumulateShared;
  private final CudaKernel finalize;
  private final CudaKernel mean;

  CudaAggregatePrimitives(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    scan = new CudaScan(backend, module);
    gather = new CudaRowGather(backend, module, scan);
    keyToInt64 = module.kernel("sw_agg_key_to_int64");
    insert = module.kernel("sw_agg_insert");
    slotFlags = module.kernel("sw_agg_slot_flags");
    firstRows = module.kernel("sw_agg_first_rows");
    init = module.kernel("sw_agg_init");
    accumulate = module.kernel("sw_agg_accumulate");
    accumulateShared = module.kernel("sw_agg_accumulate_shared");
    finalize = module.kernel("sw_agg_finalize");
    mean = module.kernel("sw_agg_mean");
  }

  @Override
  public AggregateResult aggregate(int rows, List<DeviceColumn> keys, List<DeviceColumn> inputs,
      List<Aggregate> aggregates, DeviceStream stream) {
    AggregatePrimitives.checkArguments(rows, keys, inputs, aggregates);
    try (Groups groups = keys.isEmpty() ? Groups.global() : groups(keys, rows, stream)) {
      List<DeviceColumn> columns = new ArrayList<>();
      try {
        boolean[] overflowed = accumulate(inputs, aggregates, rows, groups, columns, stream);
        if (!keys.isEmpty()) {
          // a view of the caller's key columns, never closed: the gather only reads them
          DeviceBatch keyView = new DeviceBatch(keys, rows);
          columns.addAll(0, gather.gather(keyView, groups.firstRows, groups.count, stream).columns());  // owned now
        }
        return new AggregateResult(new DeviceBatch(columns, groups.count), overflowed);
      } catch (RuntimeException e) {
        Closeables.closeAll(columns);
        throw e;
      }
    }
  }

  @Override
  public Mean mean(DeviceColumn sum, DeviceColumn count, DeviceType resultType, DeviceStream stream) {
    AggregatePrimitives.checkMean(sum, count, resultType);
    int rows = sum.rowCount();
    DeviceColumn out = DeviceColumn.allocate(backend, resultType, rows, 0, stream);
    try (DeviceBuffer flag = backend.allocate(4, stream)) {
      backend.fill(flag, 0, 4, (byte) 0, stream);
      if (rows > 0) {
        BigInteger bound = resultType.isDecimal() ? BigInteger.TEN.pow(resultType.precision()) : BigInteger.ZERO;
        long factor = resultType.isDecimal() ? BigInteger.TEN.pow(resultType.scale() - sum.type().scale()).longValue()
            : 1;
        mean.launchGridStride((rows + 31L) / 32 * 32, CudaStream.of(stream), new KernelArgs()
            .pointer(sum.validity()).pointer(sum.data()).i32(layout(sum.type()).ordinal())
            .pointer(count.validity()).pointer(count.data()).i64(rows).i64(factor).i64(bound.longValue())
            .i64(bound.shiftRight(64).longValue()).i32(layout(resultType).ordinal()).pointer(out.validity())
            .pointer(out.data()).pointer(flag));
      }
      return new Mean(out, DeviceReadback.ints(backend, flag, 0, 1, stream)[0] != 0);
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  // ---- Groups ----

  /** The groups of the rows: how many, each row's slot, each slot's group, each group's first row. */
  private record Groups(int count, DeviceBuffer slotOfRow, DeviceBuffer groupOfSlot, DeviceBuffer firstRows)
      implements AutoCloseable {
    static Groups global() {
      return new Groups(1, null, null, null);
    }

    @Override
    public void close() {
      Closeables.closeAll(Arrays.asList(slotOfRow, groupOfSlot, firstRows));
    }
  }

  private Groups groups(List<DeviceColumn> keys, int rows, DeviceStream stream) {
    List<DeviceColumn> normalised = new ArrayList<>();
    DeviceBuffer slotOfRow = null;
    DeviceBuffer groupOfSlot = null;
    DeviceBuffer first = null;
    try {
      List<DeviceColumn> keyColumns = new ArrayList<>();
      for (DeviceColumn c : keys) keyColumns.add(hashable(c, normalised, stream));
      JoinKeys table = new JoinKeys(keyColumns, Collections.nCopies(keyColumns.size(), true));
      long slots = rows <= 1 ? 2 : Long.highestOneBit(2L * rows - 1) << 1;
      slotOfRow = backend.allocate(4L * Math.max(1, rows), stream);
      groupOfSlot = backend.allocate(4 * (slots + 1), stream);
      int count;
      try (DeviceBuffer slotArray = backend.allocate(8 * slots, stream)) {
        backend.fill(slotArray, 0, 8 * slots, (byte) 0xFF, stream);
        if (rows > 0) {
          insert.launchGridStride(rows, CudaStream.of(stream), new KernelArgs().struct(table.abi()).i64(rows)
              .pointer(slotArray).i64(slots - 1).pointer(slotOfRow));
        }
        slotFlags.launchGridStride(slots, CudaStream.of(stream), new KernelArgs().pointer(slotArray).i64(slots)
            .pointer(groupOfSlot));
        scan.exclusiveSum(groupOfSlot, slots, stream);
        count = (int) DeviceReadback.ints(backend, groupOfSlot, 4 * slots, 1, stream)[0];
        first = backend.allocate(4L * Math.max(1, count), stream);
        firstRows.launchGridStride(slots, CudaStream.of(stream), new KernelArgs().pointer(slotArray).i64(slots)
            .pointer(groupOfSlot).pointer(first));
      }
      return new Groups(count, slotOfRow, groupOfSlot, first);
    } catch (RuntimeException e) {
      Closeables.closeAll(Arrays.asList(slotOfRow, groupOfSlot, first));
      throw e;
    } finally {
      Closeables.closeAll(normalised);
    }
  }

  /**
   * A key column as the hash table takes it (int32, int64 or bytes): booleans, bytes, shorts, floats and doubles
   * become int64 keys in a new column added to {@code made}.
   */
  private DeviceColumn hashable(DeviceColumn c, List<DeviceColumn> made, DeviceStream stream) {
    int kind = switch (c.type().kind()) {
      case BOOLEAN -> 0;
      case BYTE -> 1;
      case SHORT -> 2;
      case FLOAT -> 3;
      case DOUBLE -> 4;
      default -> -1;
    };
    if (kind < 0) return c;
    DeviceColumn wide = DeviceColumn.allocate(backend, DeviceType.LONG, c.rowCount(), 0, stream);
    made.add(wide);
    backend.copyDeviceToDevice(c.validity(), 0, wide.validity(), 0, (c.rowCount() + 7) / 8, stream);
    if (c.rowCount() > 0) {
      keyToInt64.launchGridStride(c.rowCount(), CudaStream.of(stream), new KernelArgs().pointer(c.data()).i32(kind)
          .i64(c.rowCount()).pointer(wide.data()));
    }
    return wide;
  }

  // ---- Accumulation ----

  /**
   * Accumulates every aggregate over the groups and adds the result columns to {@code columns}; returns the
   * overflow flags.
   */
  private boolean[] accumulate(List<DeviceColumn> inputs, List<Aggregate> aggregates, int rows, Groups groups,
      List<DeviceColumn> columns, DeviceStream stream) {
    int k = aggregates.size();
    long g = groups.count;
    long[] accAt = new long[k];
    long stateBytes = 0;
    int sharedPerGroup = 0;
    for (int i = 0; i < k; i++) {
      accAt[i] = stateBytes;
      int words = accWords(aggregates.get(i), inputs);
      stateBytes += 8 * g * words;
      sharedPerGroup += 8 * words + 4;
    }
    long flagsAt = stateBytes;
    stateBytes += 4 * g * k;
    long overflowAt = (stateBytes + 7) / 8 * 8;
    stateBytes = overflowAt + 4L * Math.max(1, k);
    try (DeviceBuffer state = backend.allocate(stateBytes, stream)) {
      backend.fill(state, overflowAt, 4L * Math.max(1, k), (byte) 0, stream);
      for (Aggregate a : aggregates) columns.add(DeviceColumn.allocate(backend, a.resultType(), (int) g, 0, stream));
      List<DeviceColumn> outputs = columns.subList(columns.size() - k, columns.size());
      byte[] specs = specs(inputs, aggregates, outputs, state, accAt, flagsAt, overflowAt, g);
      if (k > 0 && g > 0) {
        CudaStream s = CudaStream.of(stream);
        init.launchGridStride(g, s, new KernelArgs().struct(specs).i64(g));
        if (rows > 0) launchAccumulate(specs, rows, groups, g * sharedPerGroup, s);
        finalize.launchGridStride((g + 31) / 32 * 32, s, new KernelArgs().struct(specs).i64(g));
      }
      boolean[] overflowed = new boolean[k];
      if (k > 0) {
        long[] flags = DeviceReadback.ints(backend, state, overflowAt, k, stream);
        for (int i = 0; i < k; i++) overflowed[i] = flags[i] != 0;
      }
      return overflowed;
    }
  }

  /**
   * Launches the accumulation: in shared memory, as many copies of the accumulators (a power of two, at most one
   * per lane) as fit a block's limit, where one copy fits; else with global atomics per row.
   */
  private void launchAccumulate(byte[] specs, int rows, Groups groups, long bytesPerCopy, CudaStream s) {
    KernelArgs args = new KernelArgs().struct(specs).i64(rows);
    if (groups.slotOfRow == null) {
      args.address(0).address(0);
    } else {
      args.pointer(groups.slotOfRow).pointer(groups.groupOfSlot);
    }
    if (bytesPerCopy > SHARED_LIMIT) {
      accumulate.launchGridStride(rows, s, args);
      return;
    }
    int copies = MAX_COPIES;
    while (copies * bytesPerCopy > SHARED_LIMIT) copies >>= 1;
    int sharedBytes = (int) (copies * bytesPerCopy);
    int perSm = Math.max(1, accumulateShared.residentBlocksPerSm(CudaKernel.BLOCK, sharedBytes));
    long blocks = Math.min((long) perSm * backend.context().device().multiprocessors(),
        (rows + CudaKernel.BLOCK - 1L) / CudaKernel.BLOCK);
    accumulateShared.launch((int) Math.max(1, blocks), CudaKernel.BLOCK, sharedBytes, s,
        args.i64(groups.count).i32(copies));
  }

  private static int accWords(Aggregate a, List<DeviceColumn> inputs) {
    return a.op() == AggregateOp.SUM && !floating(inputs.get(a.input()).type()) ? 3 : 1;
  }

  private static boolean floating(DeviceType t) {
    return t.kind() == DeviceType.Kind.FLOAT || t.kind() == DeviceType.Kind.DOUBLE;
  }

  private static Layout layout(DeviceType t) {
    return switch (t.kind()) {
      case BOOLEAN -> Layout.BOOL;
      case BYTE -> Layout.INT8;
      case SHORT -> Layout.INT16;
      case INT, DATE -> Layout.INT32;
      case LONG, TIMESTAMP, DECIMAL -> Layout.INT64;
      case DECIMAL128 -> Layout.INT128;
      case FLOAT -> Layout.FLOAT;
      case DOUBLE -> Layout.DOUBLE;
      case STRING, BINARY -> Layout.NONE;
    };
  }

  /** aggregate_spec.cuh's AggSpecs, by value. */
  private static byte[] specs(List<DeviceColumn> inputs, List<Aggregate> aggregates, List<DeviceColumn> outputs,
      DeviceBuffer state, long[] accAt, long flagsAt, long overflowAt, long groups) {
    ByteBuffer b = ByteBuffer.allocate(SPECS_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < aggregates.size(); i++) {
      Aggregate a = aggregates.get(i);
      int at = i * SPEC_BYTES;
      DeviceColumn in = a.input() < 0 ? null : inputs.get(a.input());
      DeviceColumn mask = a.mask() < 0 ? null : inputs.get(a.mask());
      DeviceColumn out = outputs.get(i);
      b.putLong(at, in == null ? 0 : in.validity().address());
      b.putLong(at + 8, in == null ? 0 : in.data().address());
      b.putLong(at + 16, mask == null ? 0 : mask.validity().address());
      b.putLong(at + 24, mask == null ? 0 : mask.data().address());
      b.putLong(at + 32, state.address() + accAt[i]);
      b.putLong(at + 40, state.address() + flagsAt + 4 * groups * i);
      b.putLong(at + 48, out.validity().address());
      b.putLong(at + 56, out.data().address());
      b.putLong(at + 64, state.address() + overflowAt + 4L * i);
      if (a.op() == AggregateOp.SUM && a.resultType().isDecimal()) {
        BigInteger bound = BigInteger.TEN.pow(a.resultType().precision());
        b.putLong(at + 72, bound.longValue());
        b.putLong(at + 80, bound.shiftRight(64).longValue());
      }
      b.putInt(at + 88, a.op().ordinal());
      b.putInt(at + 92, in == null ? Layout.NONE.ordinal() : layout(in.type()).ordinal());
      b.putInt(at + 96, layout(a.resultType()).ordinal());
      b.putInt(at + 100, (a.nullPoisons() ? 1 : 0) | (a.emptyIsIdentity() ? 2 : 0) | (a.maskValue() ? 0 : 4));
      for (int f = 0; f < a.factors().size(); f++) {
        DeviceColumn factor = inputs.get(a.factors().get(f));
        b.putLong(at + 104 + 8 * f, factor.validity().address());
        b.putLong(at + 104 + 8 * Aggregate.MAX_FACTORS + 8 * f, factor.data().address());
      }
    }
    b.putInt(MAX_AGGREGATES * SPEC_BYTES, aggregates.size());
    return b.array();
  }
}
