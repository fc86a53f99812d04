package io.sparkwarp.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.Comparison;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.strings.ColumnMatch;
import io.sparkwarp.strings.MatchOptions;
import io.sparkwarp.strings.MatchingProgram;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every join type, as a hash join building either side and as a merge-path sort-merge join, at a tiny and a large
 * chunk size, against a nested-loop oracle: rows (key, name, value) on both sides with null keys, duplicate keys on
 * both sides, a hot key (a quarter of the rows), and empty sides; on the keys alone, and with residual conditions
 * over one or both sides, with nulls, that reject every pair or none.
 */
class DeviceJoinTest extends BackendTestBase {
  private final Random rnd = new Random();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  /** A residual condition: the program with the columns it reads, and what it means for rows i and j. */
  private record Condition(String name, JoinCondition program, ConditionOracle oracle) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** The condition for left row i and right row j: true, false or null. */
  private interface ConditionOracle {
    Boolean test(SideRows left, int i, SideRows right, int j);
  }

  private static final Condition NONE = new Condition("keys only", null, (l, i, r, j) -> true);

  /** Conditions over both sides, with nulls in what they read, rejecting some pairs, all or none. */
  private static List<Condition> conditions() {
    List<DeviceType> twoInts = List.of(DeviceType.INT, DeviceType.INT);
    return List.of(
        new Condition("l.v < r.v", new JoinCondition(MatchingProgram.plain(ExprProgram.builder(twoInts).column(0).column(1)
            .compare(Comparison.LT).output().build()), new int[] {SideRows.VALUE}, new int[] {SideRows.VALUE}),
            (l, i, r, j) -> l.values()[i] == null || r.values()[j] == null ? null : l.values()[i] < r.values()[j]),
        new Condition("r.n < l.n or l.v is null", new JoinCondition(MatchingProgram.plain(ExprProgram.builder(List.of(DeviceType.STRING,
            DeviceType.INT, DeviceType.STRING)).column(2).column(0).compare(Comparison.LT).column(1).isNull().or()
            .output().build()), new int[] {SideRows.NAME, SideRows.VALUE}, new int[] {SideRows.NAME}),
            (l, i, r, j) -> {
              Boolean less = l.names()[i] == null || r.names()[j] == null ? null
                  : compareBytes(r.names()[j], l.names()[i]) < 0;
              boolean vNull = l.values()[i] == null;
              return vNull || Boolean.TRUE.equals(less) ? Boolean.TRUE : less == null ? null : false;
            }),
        new Condition("r.v > 100 (none pass)", new JoinCondition(MatchingProgram.plain(ExprProgram.builder(
            List.of(DeviceType.INT))
            .column(0).literal(DeviceType.INT, 100).compare(Comparison.GT).output().build()), new int[0],
            new int[] {SideRows.VALUE}), (l, i, r, j) -> r.values()[j] == null ? null : r.values()[j] > 100),
        new Condition("l.v is null or l.v is not null (all pass)", new JoinCondition(MatchingProgram.plain(
            ExprProgram.builder(List.of(DeviceType.INT)).column(0).isNull().column(0).isNotNull().or().output().build()),
            new int[] {SideRows.VALUE}, new int[0]), (l, i, r, j) -> true),
        // a string predicate: its match column follows the condition's columns in the program's input
        new Condition("l.n LIKE '%1%' and r.v is not null", new JoinCondition(new MatchingProgram(
            ExprProgram.builder(List.of(DeviceType.STRING, DeviceType.INT, DeviceType.BOOLEAN)).column(2).column(1).isNotNull().and()
            .output().build(), List.of(new ColumnMatch(0, SegmentMatcher.contains(new byte[] {'1'}))), List.of(),
            MatchOptions.DEFAULT, results -> {}), new int[] {SideRows.NAME}, new int[] {SideRows.VALUE}),
            (l, i, r, j) -> {
              Boolean like = l.names()[i] == null ? null : l.names()[i].contains("1");
              boolean notNull = r.values()[j] != null;
              return !notNull || Boolean.FALSE.equals(like) ? Boolean.FALSE : like == null ? null : true;
            }));
  }

  private static int compareBytes(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> oracle(JoinType type, SideRows left, SideRows right, Condition condition) {
    List<String> rows = new ArrayList<>();
    boolean[] rightMatched = new boolean[right.keys().length];
    for (int i = 0; i < left.keys().length; i++) {
      boolean matched = false;
      for (int j = 0; j < right.keys().length; j++) {
        if (left.keys()[i] != null && left.keys()[i].equals(right.keys()[j])
            && Boolean.TRUE.equals(condition.oracle().test(left, i, right, j))) {
          matched = true;
          rightMatched[j] = true;
          if (type.outputsRight()) rows.add(left.row(i) + "|" + right.row(j));
        }
      }
      if (type == JoinType.LEFT_SEMI && matched || type == JoinType.LEFT_ANTI && !matched) rows.add(left.row(i));
      if (!matched && (type == JoinType.LEFT_OUTER || type == JoinType.FULL_OUTER)) {
        rows.add(left.row(i) + "|null/null/null");
      }
    }
    for (int j = 0; j < right.keys().length; j++) {
      if (!rightMatched[j] && (type == JoinType.RIGHT_OUTER || type == JoinType.FULL_OUTER)) {
        rows.add("null/null/null|" + right.row(j));
      }
    }
    rows.sort(null);
    return rows;
  }

  @ParameterizedTest
  @EnumSource(JoinType.class)
  void everyJoinTypeMatchesNestedLoops(JoinType type) {
    matchesNestedLoops(type, NONE);
  }

  static Stream<Arguments> typesAndConditions() {
    return Arrays.stream(JoinType.values()).flatMap(type -> conditions().stream().map(c -> Arguments.of(type, c)));
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("typesAndConditions")
  void residualConditionsMatchNestedLoops(JoinType type, Condition condition) {
    matchesNestedLoops(type, condition);
  }

  private void matchesNestedLoops(JoinType type, Condition condition) {
    int[][] sizes = {{40, 30}, {0, 10}, {10, 0}, {200, 150}};
    for (int[] size : sizes) {
      SideRows left = SideRows.random(rnd, size[0], 12);
      SideRows right = SideRows.random(rnd, size[1], 12);
      List<String> expected = oracle(type, left, right, condition);
      for (JoinType.Side buildSide : JoinType.Side.values()) {
        for (int chunk : new int[] {3, 1 << 20}) {
          assertEquals(expected, run(type, buildSide, condition.program(), chunk, left, right),
              type + " on " + condition + " building " + buildSide + " in chunks of " + chunk + ", sizes " + size[0]
                  + "x" + size[1]);
        }
      }
      for (int chunk : new int[] {3, 1 << 20}) {
        assertEquals(expected, merge(type, condition.program(), chunk, left, right), "merge join, " + type + " on "
            + condition + " in chunks of " + chunk + ", sizes " + size[0] + "x" + size[1]);
      }
    }
  }

  @Test
  void conditionOverMistypedColumnsIsRefused() {
    JoinCondition namesAsInts = new JoinCondition(MatchingProgram.plain(ExprProgram.builder(List.of(DeviceType.INT)).column(0).isNull()
        .output().build()), new int[] {SideRows.NAME}, new int[0]);
    SideRows side = SideRows.random(rnd, 5, 3);
    try (DeviceBatch l = side.upload(backend, transfer, stream);
        DeviceBatch r = side.upload(backend, transfer, stream)) {
      JoinKeys keys = JoinKeys.of(r.column(SideRows.KEY));
      try (HashJoinBuild table = HashJoinBuild.build(backend, keys, HashJoinBuild.Choice.AUTO, stream)) {
        assertThrows(IllegalArgumentException.class, () -> new DeviceHashJoin(backend, r, keys, table,
            JoinType.INNER, JoinType.Side.RIGHT, namesAsInts, types(l), 10, null, stream));
      }
      assertThrows(IllegalArgumentException.class, () -> DeviceMergeJoin.join(backend, l, JoinKeys.of(l.column(
          SideRows.KEY)), r, keys, JoinType.INNER, namesAsInts, 10, stream, b -> b.close()));
    }
  }

  private static List<DeviceType> types(DeviceBatch batch) {
    return batch.columns().stream().map(DeviceColumn::type).toList();
  }

  private List<String> run(JoinType type, JoinType.Side buildSide, JoinCondition condition, int chunk, SideRows left,
      SideRows right) {
    List<DeviceBatch> out = new ArrayList<>();
    try (DeviceBatch l = left.upload(backend, transfer, stream);
        DeviceBatch r = right.upload(backend, transfer, stream)) {
      DeviceBatch build = buildSide == JoinType.Side.LEFT ? l : r;
      DeviceBatch probe = buildSide == JoinType.Side.LEFT ? r : l;
      JoinKeys buildKeys = JoinKeys.of(build.column(SideRows.KEY));
      try (HashJoinBuild table = HashJoinBuild.build(backend, buildKeys, HashJoinBuild.Choice.AUTO, stream);
          DeviceHashJoin join = new DeviceHashJoin(backend, build, buildKeys, table, type, buildSide, condition,
              types(probe), chunk, null, stream)) {
        // the stream side in two batches, as Spark hands it over
        int half = probe.rowCount() / 2;
        try (DeviceBatch first = BatchSlicer.slice(backend, probe, 0, half, stream);
            DeviceBatch second = BatchSlicer.slice(backend, probe, half, probe.rowCount() - half, stream)) {
          join.join(first, JoinKeys.of(first.column(SideRows.KEY)), out::add);
          join.join(second, JoinKeys.of(second.column(SideRows.KEY)), out::add);
        }
        join.finish(out::add);
      }
      return SideRows.joinedRows(backend, out, type.outputsRight(), transfer, stream);
    } finally {
      Closeables.closeAll(out);
    }
  }

  private List<String> merge(JoinType type, JoinCondition condition, int chunk, SideRows left, SideRows right) {
    List<DeviceBatch> out = new ArrayList<>();
    try (DeviceBatch l = left.upload(backend, transfer, stream);
        DeviceBatch r = right.upload(backend, transfer, stream)) {
      long pairs = DeviceMergeJoin.join(backend, l, JoinKeys.of(l.column(SideRows.KEY)), r, JoinKeys.of(r.column(
          SideRows.KEY)), type, condition, chunk, stream, out::add);
      assertEquals(keyPairs(left, right), pairs, "pairs with equal keys");
      for (DeviceBatch b : out) {
        // an inner join's batches are all pairs, chunked; outer joins add rows of one side in one batch each
        if (type == JoinType.INNER && b.rowCount() > chunk) throw new AssertionError(b.rowCount() + " > " + chunk);
      }
      return SideRows.joinedRows(backend, out, type.outputsRight(), transfer, stream);
    } finally {
      Closeables.closeAll(out);
    }
  }

  private static long keyPairs(SideRows left, SideRows right) {
    long pairs = 0;
    for (Integer k : left.keys()) {
      for (Integer m : right.keys()) {
        if (k != null && k.equals(m)) pairs++;
      }
    }
    return pairs;
  }
}
