package io.sparkwarp.join;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every join type, building either side, at a tiny and a large chunk size, against a nested-loop oracle: left rows
 * (key, name) and right rows (key, value) with null keys, duplicate keys on both sides, a hot key, and empty sides.
 */
class DeviceHashJoinTest extends BackendTestBase {
  private final Random rnd = new Random();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  /** A side: keys (null allowed) and a string per row, uploaded as (int key, string) columns. */
  private record Side(Integer[] keys, String[] names) {
    static Side random(Random rnd, int rows, int distinct) {
      Integer[] keys = new Integer[rows];
      String[] names = new String[rows];
      for (int i = 0; i < rows; i++) {
        keys[i] = rnd.nextInt(10) == 0 ? null : rnd.nextInt(4) == 0 ? 7 : rnd.nextInt(distinct);
        names[i] = rnd.nextInt(10) == 0 ? null : "r" + i + (i % 3 == 0 ? "ü日" : "");
      }
      return new Side(keys, names);
    }

    String row(int i) {
      return keys[i] + "/" + names[i];
    }
  }

  private DeviceBatch upload(Side side) {
    try (IntVector k = new IntVector("k", transfer); VarCharVector n = new VarCharVector("n", transfer)) {
      k.allocateNew(side.keys.length);
      n.allocateNew();
      for (int i = 0; i < side.keys.length; i++) {
        if (side.keys[i] == null) k.setNull(i);
        else k.set(i, side.keys[i]);
        if (side.names[i] == null) n.setNull(i);
        else n.setSafe(i, side.names[i].getBytes(StandardCharsets.UTF_8));
      }
      k.setValueCount(side.keys.length);
      n.setValueCount(side.keys.length);
      DeviceBatch batch = ArrowUpload.upload(backend, List.<FieldVector>of(k, n), stream);
      stream.synchronize();
      return batch;
    }
  }

  /** Each output row as "leftKey/leftName|rightKey/rightName" (nulls as "null"). */
  private List<String> rows(List<DeviceBatch> batches, boolean withRight) {
    List<String> rows = new ArrayList<>();
    for (DeviceBatch b : batches) {
      List<String> names = withRight ? List.of("lk", "ln", "rk", "rn") : List.of("lk", "ln");
      List<FieldVector> vectors;
      try (ArrowDownload d = ArrowDownload.begin(backend, b, names, transfer, stream)) {
        vectors = d.complete();
      }
      try {
        for (int i = 0; i < b.rowCount(); i++) {
          String left = vectors.get(0).getObject(i) + "/" + vectors.get(1).getObject(i);
          rows.add(withRight ? left + "|" + vectors.get(2).getObject(i) + "/" + vectors.get(3).getObject(i) : left);
        }
      } finally {
        Closeables.closeAll(vectors);
      }
    }
    rows.sort(null);
    return rows;
  }

  private static List<String> oracle(JoinType type, Side left, Side right) {
    List<String> rows = new ArrayList<>();
    boolean[] rightMatched = new boolean[right.keys.length];
    for (int i = 0; i < left.keys.length; i++) {
      boolean matched = false;
      for (int j = 0; j < right.keys.length; j++) {
        if (left.keys[i] != null && left.keys[i].equals(right.keys[j])) {
          matched = true;
          rightMatched[j] = true;
          if (type.outputsRight()) rows.add(left.row(i) + "|" + right.row(j));
        }
      }
      if (type == JoinType.LEFT_SEMI && matched || type == JoinType.LEFT_ANTI && !matched) rows.add(left.row(i));
      if (!matched && (type == JoinType.LEFT_OUTER || type == JoinType.FULL_OUTER)) {
        rows.add(left.row(i) + "|null/null");
      }
    }
    for (int j = 0; j < right.keys.length; j++) {
      if (!rightMatched[j] && (type == JoinType.RIGHT_OUTER || type == JoinType.FULL_OUTER)) {
        rows.add("null/null|" + right.row(j));
      }
    }
    rows.sort(null);
    return rows;
  }

  @ParameterizedTest
  @EnumSource(JoinType.class)
  void everyJoinTypeMatchesNestedLoops(JoinType type) {
    int[][] sizes = {{40, 30}, {0, 10}, {10, 0}, {200, 150}};
    for (int[] size : sizes) {
      Side left = Side.random(rnd, size[0], 12);
      Side right = Side.random(rnd, size[1], 12);
      List<String> expected = oracle(type, left, right);
      for (JoinType.Side buildSide : JoinType.Side.values()) {
        for (int chunk : new int[] {3, 1 << 20}) {
          assertEquals(expected, run(type, buildSide, chunk, left, right),
              type + " building " + buildSide + " in chunks of " + chunk + ", sizes " + size[0] + "x" + size[1]);
        }
      }
    }
  }

  private List<String> run(JoinType type, JoinType.Side buildSide, int chunk, Side left, Side right) {
    List<DeviceBatch> out = new ArrayList<>();
    try (DeviceBatch l = upload(left); DeviceBatch r = upload(right)) {
      DeviceBatch build = buildSide == JoinType.Side.LEFT ? l : r;
      DeviceBatch probe = buildSide == JoinType.Side.LEFT ? r : l;
      List<DeviceType> streamTypes = probe.columns().stream().map(DeviceColumn::type).toList();
      JoinKeys buildKeys = JoinKeys.of(build.column(0));
      try (HashJoinBuild table = HashJoinBuild.build(backend, buildKeys, HashJoinBuild.Choice.AUTO, stream)) {
        DeviceHashJoin join = new DeviceHashJoin(backend, build, buildKeys, table, type, buildSide, streamTypes, chunk,
            null, stream);
        // the stream side in two batches, as Spark hands it over
        int half = probe.rowCount() / 2;
        try (DeviceBatch first = io.sparkwarp.kernels.batch.BatchSlicer.slice(backend, probe, 0, half, stream);
            DeviceBatch second = io.sparkwarp.kernels.batch.BatchSlicer.slice(backend, probe, half,
                probe.rowCount() - half, stream)) {
          join.join(first, JoinKeys.of(first.column(0)), out::add);
          join.join(second, JoinKeys.of(second.column(0)), out::add);
        }
        join.finish(out::add);
      }
      return rows(out, type.outputsRight());
    } finally {
      Closeables.closeAll(out);
    }
  }
}
