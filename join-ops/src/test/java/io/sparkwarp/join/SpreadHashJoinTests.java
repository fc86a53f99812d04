package io.sparkwarp.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.PeerBatchCopy;
import io.sparkwarp.kernels.expr.Comparison;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.strings.MatchingProgram;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The spread join over two and all of a backend's devices (subclasses pick the backend and the count) against the
 * single-device hash join on the home device, for every join type and build side: rows (int key, multi-byte string,
 * int) with null keys (plain and null-safe), a hot key, a residual condition, empty sides, parts split for skew
 * where the type allows it, and inputs already spread over the devices.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SpreadHashJoinTests {
  /** l.v < r.v over the value columns. */
  private static final JoinCondition LESS = new JoinCondition(MatchingProgram.plain(ExprProgram.builder(
      List.of(DeviceType.INT, DeviceType.INT)).column(0).column(1).compare(Comparison.LT).output().build()),
      new int[] {SideRows.VALUE}, new int[] {SideRows.VALUE});

  private final List<Backend> devices = new ArrayList<>();
  private final List<DeviceStream> streams = new ArrayList<>();
  private BufferAllocator allocator;
  private final Random rnd = new Random(16);
  /** Whether run() joins on copies of the key columns (computed keys) instead of the rows' own key columns. */
  private boolean keysApart;
  /** The copies run() made for keysApart, closed when it returns. */
  private final List<DeviceBatch> keyCopies = new ArrayList<>();

  protected abstract BackendKind kind();

  /** How many devices to open, at least 2; called before anything opens, so it may skip the class (assumption). */
  protected abstract int deviceCount();

  @BeforeAll
  void open() {
    int count = deviceCount();
    for (int d = 0; d < count; d++) {
      devices.add(Backends.open(kind(), BackendOptions.defaults().withDevice(d)));
      streams.add(devices.get(d).newStream());
    }
    allocator = new RootAllocator();
  }

  @AfterEach
  void nothingLeaked() {
    for (Backend device : devices) assertEquals(List.of(), device.deviceMemory().liveBuffers(), "device memory left");
  }

  @AfterAll
  void close() {
    Closeables.closeAll(streams);
    allocator.close();
    Closeables.closeAll(devices);
  }

  @ParameterizedTest
  @EnumSource(JoinType.class)
  void everyJoinTypeMatchesOneDevice(JoinType type) {
    for (int[] size : new int[][] {{300, 200}, {0, 50}, {50, 0}}) {
      SideRows left = SideRows.random(rnd, size[0], 40);
      SideRows right = SideRows.random(rnd, size[1], 40);
      for (JoinType.Side buildSide : JoinType.Side.values()) {
        for (JoinCondition condition : new JoinCondition[] {null, LESS}) {
          String what = type + " building " + buildSide + (condition == null ? "" : " with l.v < r.v") + ", "
              + size[0] + "x" + size[1];
          List<String> expected = run(type, buildSide, condition, false, left, right, 1, 0, Long.MAX_VALUE).rows();
          assertEquals(expected, run(type, buildSide, condition, false, left, right, 2, 0, Long.MAX_VALUE).rows(),
              what + " on 2 devices");
          int all = devices.size();
          assertEquals(expected, run(type, buildSide, condition, false, left, right, all, all - 1, Long.MAX_VALUE)
              .rows(), what + " on " + all + " devices, home " + (all - 1));
        }
      }
    }
  }

  /**
   * Keys that are not columns of the rows (computed keys) travel appended to the rows; keys that are (the other
   * tests) travel once, as their column. Both give the single device's answer.
   */
  @ParameterizedTest
  @EnumSource(JoinType.class)
  void keysApartFromTheRowsMatchOneDevice(JoinType type) {
    SideRows left = SideRows.random(rnd, 250, 30);
    SideRows right = SideRows.random(rnd, 180, 30);
    keysApart = true;
    try {
      for (JoinType.Side buildSide : JoinType.Side.values()) {
        List<String> expected = run(type, buildSide, LESS, false, left, right, 1, 0, Long.MAX_VALUE).rows();
        assertEquals(expected, run(type, buildSide, LESS, false, left, right, devices.size(), 0, Long.MAX_VALUE)
            .rows(), type + " building " + buildSide);
        assertEquals(expected, run(type, buildSide, LESS, false, left, right, devices.size(), 0, 500).rows(),
            type + " building " + buildSide + ", heavy parts split");
      }
    } finally {
      keysApart = false;
    }
  }

  /** Null-safe keys: null matches null, and every null key of both sides lands on one device. */
  @ParameterizedTest
  @EnumSource(JoinType.class)
  void nullSafeKeysMatchOneDevice(JoinType type) {
    SideRows left = SideRows.random(rnd, 200, 30);
    SideRows right = SideRows.random(rnd, 150, 30);
    List<String> expected = run(type, JoinType.Side.RIGHT, null, true, left, right, 1, 0, Long.MAX_VALUE).rows();
    assertEquals(expected, run(type, JoinType.Side.RIGHT, null, true, left, right, devices.size(), 0,
        Long.MAX_VALUE).rows(), type.toString());
  }

  /**
   * Parts above a few hundred bytes are split where the join type allows it (a heavy build part's rows dealt over
   * the devices and its stream rows sent to all; a heavy stream part's rows dealt and its build rows copied to all)
   * and kept whole where it does not (a full outer join): the answer is the same either way.
   */
  @ParameterizedTest
  @EnumSource(JoinType.class)
  void heavyPartsSplitWhereTheTypeAllows(JoinType type) {
    SideRows left = SideRows.random(rnd, 600, 20);
    SideRows right = SideRows.random(rnd, 400, 20);
    for (JoinType.Side buildSide : JoinType.Side.values()) {
      for (JoinCondition condition : new JoinCondition[] {null, LESS}) {
        String what = type + " building " + buildSide + (condition == null ? "" : " with l.v < r.v");
        List<String> expected = run(type, buildSide, condition, false, left, right, 1, 0, Long.MAX_VALUE).rows();
        Result split = run(type, buildSide, condition, false, left, right, devices.size(), devices.size() - 1, 500);
        assertEquals(expected, split.rows(), what);
        boolean allowed = !DeviceHashJoin.tracksBuildMatches(type, buildSide)
            || !DeviceHashJoin.tracksStreamMatches(type, buildSide);
        assertEquals(allowed, split.splitParts() > 0, what + ": " + split.splitParts() + " parts split");
      }
    }
  }

  @Test
  void aHotKeyOfTheStreamSideIsDealtOverAllDevices() {
    SideRows build = SideRows.random(rnd, 100, 50);
    Integer[] keys = new Integer[3000];
    Arrays.fill(keys, 7);
    SideRows stream = new SideRows(keys, new String[keys.length], new Integer[keys.length]);
    Result spread = run(JoinType.INNER, JoinType.Side.RIGHT, null, false, stream, build, 2, 0, 4096);
    assertEquals(run(JoinType.INNER, JoinType.Side.RIGHT, null, false, stream, build, 1, 0, Long.MAX_VALUE).rows(),
        spread.rows());
    assertTrue(spread.splitParts() == 1, spread.splitParts() + " parts split");
  }

  /**
   * Both sides already spread, a share on each device (the build's last share empty): the all-to-all exchange, each
   * device's output left where it was made, equals the single device's.
   */
  @ParameterizedTest
  @EnumSource(JoinType.class)
  void sharesOnEveryDeviceMatchOneDevice(JoinType type) {
    SideRows left = SideRows.random(rnd, 300, 40);
    SideRows right = SideRows.random(rnd, 200, 40);
    List<String> expected = run(type, JoinType.Side.RIGHT, LESS, false, left, right, 1, 0, Long.MAX_VALUE).rows();
    Backend home = devices.get(0);
    List<DeviceBatch> shares = new ArrayList<>();
    List<DeviceBatch> out = new ArrayList<>();
    List<String> rows = new ArrayList<>();
    try (DeviceBatch l = left.upload(home, allocator, streams.get(0));
        DeviceBatch r = right.upload(home, allocator, streams.get(0))) {
      List<DeviceBatch> buildShares = share(r, bounds(200, true), shares);
      List<DeviceBatch> streamShares = share(l, bounds(300, false), shares);
      List<DeviceType> streamTypes = l.columns().stream().map(DeviceColumn::type).toList();
      try (SpreadHashJoin join = new SpreadHashJoin(devices, 0, buildShares, keysOf(buildShares), type,
          JoinType.Side.RIGHT, LESS, streamTypes, 64, Long.MAX_VALUE, streams)) {
        join.joinShares(streamShares, keysOf(streamShares), (batch, device) -> {
          out.add(batch);
          rows.addAll(SideRows.joinedRows(devices.get(device), List.of(batch), type.outputsRight(), allocator,
              streams.get(device)));
        });
        join.finish(batch -> {
          out.add(batch);
          rows.addAll(SideRows.joinedRows(home, List.of(batch), type.outputsRight(), allocator, streams.get(0)));
        });
      }
    } finally {
      Closeables.closeAll(out);
      Closeables.closeAll(shares);
    }
    rows.sort(null);
    assertEquals(expected, rows, type.toString());
  }

  /** Rows [bounds[d], bounds[d + 1]) of {@code batch} copied to device d, each added to {@code owned}. */
  private List<DeviceBatch> share(DeviceBatch batch, int[] bounds, List<DeviceBatch> owned) {
    List<DeviceBatch> shares = new ArrayList<>();
    for (int d = 0; d < devices.size(); d++) {
      try (DeviceBatch rows = BatchSlicer.slice(devices.get(0), batch, bounds[d], bounds[d + 1] - bounds[d],
          streams.get(0))) {
        DeviceBatch share = PeerBatchCopy.copy(devices.get(0), rows, streams.get(0), devices.get(d), streams.get(d));
        owned.add(share);
        shares.add(share);
      }
    }
    return shares;
  }

  /** Rows split evenly over the devices, or over all but the last (which then gets an empty share). */
  private int[] bounds(int rows, boolean lastEmpty) {
    int count = devices.size();
    int holding = lastEmpty ? count - 1 : count;
    int[] bounds = new int[count + 1];
    for (int d = 0; d <= count; d++) bounds[d] = (int) ((long) rows * Math.min(d, holding) / holding);
    return bounds;
  }

  private static List<JoinKeys> keysOf(List<DeviceBatch> shares) {
    return shares.stream().map(b -> keys(b, false)).toList();
  }

  /**
   * A key with a thousand build rows: its part's build rows are dealt over the devices where the type allows it
   * (no stream row's output depends on all its matches), every matching stream row probing them all.
   */
  @ParameterizedTest
  @EnumSource(JoinType.class)
  void aHotKeyOfTheBuildSideIsDealtOverAllDevices(JoinType type) {
    Integer[] keys = new Integer[1200];
    Arrays.fill(keys, 7);
    for (int i = 0; i < keys.length; i += 10) keys[i] = i;  // some rows of other keys, some unmatched
    Integer[] values = new Integer[keys.length];
    for (int i = 0; i < values.length; i++) values[i] = i % 20;
    SideRows build = new SideRows(keys, new String[keys.length], values);
    SideRows stream = SideRows.random(rnd, 40, 12);
    for (JoinType.Side buildSide : JoinType.Side.values()) {
      SideRows left = buildSide == JoinType.Side.LEFT ? build : stream;
      SideRows right = buildSide == JoinType.Side.LEFT ? stream : build;
      Result spread = run(type, buildSide, LESS, false, left, right, 2, 0, 4096);
      assertEquals(run(type, buildSide, LESS, false, left, right, 1, 0, Long.MAX_VALUE).rows(), spread.rows(),
          type + " building " + buildSide);
      if (!DeviceHashJoin.tracksStreamMatches(type, buildSide)) {
        assertTrue(spread.splitParts() > 0, type + " building " + buildSide + ": the hot key's part was not split");
      }
    }
  }

  private record Result(List<String> rows, int splitParts) {}

  /**
   * Joins left and right on {@code count} devices from {@code home}: with one device the plain {@link
   * DeviceHashJoin}, else the spread join. The stream side comes in two batches.
   */
  private Result run(JoinType type, JoinType.Side buildSide, JoinCondition condition, boolean nullSafe, SideRows left,
      SideRows right, int count, int home, long splitBytes) {
    Backend backend = devices.get(home);
    DeviceStream stream = streams.get(home);
    List<DeviceBatch> out = new ArrayList<>();
    int splitParts = 0;
    try (DeviceBatch l = left.upload(backend, allocator, stream);
        DeviceBatch r = right.upload(backend, allocator, stream)) {
      DeviceBatch build = buildSide == JoinType.Side.LEFT ? l : r;
      DeviceBatch probe = buildSide == JoinType.Side.LEFT ? r : l;
      JoinKeys buildKeys = runKeys(backend, build, nullSafe, stream);
      List<DeviceType> streamTypes = probe.columns().stream().map(DeviceColumn::type).toList();
      int half = probe.rowCount() / 2;
      try (DeviceBatch first = BatchSlicer.slice(backend, probe, 0, half, stream);
          DeviceBatch second = BatchSlicer.slice(backend, probe, half, probe.rowCount() - half, stream)) {
        if (count == 1) {
          try (HashJoinBuild table = HashJoinBuild.build(backend, buildKeys, HashJoinBuild.Choice.AUTO, stream);
              DeviceHashJoin join = new DeviceHashJoin(backend, build, buildKeys, table, type, buildSide, condition,
                  streamTypes, 64, null, stream)) {
            join.join(first, runKeys(backend, first, nullSafe, stream), out::add);
            join.join(second, runKeys(backend, second, nullSafe, stream), out::add);
            join.finish(out::add);
          }
        } else {
          try (SpreadHashJoin join = new SpreadHashJoin(devices.subList(0, count), home, build, buildKeys, type,
              buildSide, condition, streamTypes, 64, splitBytes, stream)) {
            join.join(first, runKeys(backend, first, nullSafe, stream), out::add);
            join.join(second, runKeys(backend, second, nullSafe, stream), out::add);
            join.finish(out::add);
            splitParts = join.splitParts();
          }
          for (Backend device : devices.subList(0, count)) {
            assertTrue(device.deviceMemory().peakBytes() > 0, "nothing ever reached " + device.description());
          }
        }
      }
      for (DeviceBatch b : out) assertTrue(b.columns().get(0).validity().isOf(backend.deviceMemory()), "output home");
      return new Result(SideRows.joinedRows(backend, out, type.outputsRight(), allocator, stream), splitParts);
    } finally {
      Closeables.closeAll(out);
      Closeables.closeAll(keyCopies);
      keyCopies.clear();
    }
  }

  /** The batch's keys for run(): its key column, or a copy of it where keysApart. */
  private JoinKeys runKeys(Backend backend, DeviceBatch batch, boolean nullSafe, DeviceStream stream) {
    if (!keysApart) return keys(batch, nullSafe);
    DeviceBatch copy = BatchSlicer.slice(backend, new DeviceBatch(List.of(batch.column(SideRows.KEY)),
        batch.rowCount()), 0, batch.rowCount(), stream);
    keyCopies.add(copy);
    return new JoinKeys(copy.columns(), List.of(nullSafe));
  }

  private static JoinKeys keys(DeviceBatch batch, boolean nullSafe) {
    return new JoinKeys(List.of(batch.column(SideRows.KEY)), List.of(nullSafe));
  }
}
