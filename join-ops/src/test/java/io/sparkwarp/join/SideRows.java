package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * One side of a test join: keys (null allowed), a string and an int per row, uploaded as (int key, string, int)
 * columns. Random sides have a tenth null keys, a quarter the hot key 7, and names of one to three bytes a character.
 */
record SideRows(Integer[] keys, String[] names, Integer[] values) {
  static final int KEY = 0;
  static final int NAME = 1;
  static final int VALUE = 2;

  static SideRows random(Random rnd, int rows, int distinct) {
    Integer[] keys = new Integer[rows];
    String[] names = new String[rows];
    Integer[] values = new Integer[rows];
    for (int i = 0; i < rows; i++) {
      keys[i] = rnd.nextInt(10) == 0 ? null : rnd.nextInt(4) == 0 ? 7 : rnd.nextInt(distinct);
      names[i] = rnd.nextInt(10) == 0 ? null : "r" + i + (i % 3 == 0 ? "ü日" : "");
      values[i] = rnd.nextInt(8) == 0 ? null : rnd.nextInt(20);
    }
    return new SideRows(keys, names, values);
  }

  String row(int i) {
    return keys[i] + "/" + names[i] + "/" + values[i];
  }

  /**
   * Every row of a join's output batches (on {@code backend}) as "leftKey/leftName/leftValue|rightKey/rightName/
   * rightValue" (nulls as "null"; the left side alone without {@code withRight}), sorted.
   */
  static List<String> joinedRows(Backend backend, List<DeviceBatch> batches, boolean withRight,
      BufferAllocator allocator, DeviceStream stream) {
    List<String> rows = new ArrayList<>();
    for (DeviceBatch b : batches) {
      List<String> names = withRight ? List.of("lk", "ln", "lv", "rk", "rn", "rv") : List.of("lk", "ln", "lv");
      List<FieldVector> vectors;
      try (ArrowDownload d = ArrowDownload.begin(backend, b, names, allocator, stream)) {
        vectors = d.complete();
      }
      try {
        for (int i = 0; i < b.rowCount(); i++) {
          String left = vectors.get(0).getObject(i) + "/" + vectors.get(1).getObject(i) + "/"
              + vectors.get(2).getObject(i);
          rows.add(withRight ? left + "|" + vectors.get(3).getObject(i) + "/" + vectors.get(4).getObject(i) + "/"
              + vectors.get(5).getObject(i) : left);
        }
      } finally {
        Closeables.closeAll(vectors);
      }
    }
    rows.sort(null);
    return rows;
  }

  /** The rows as a device batch on {@code backend}, staged through {@code allocator}. */
  DeviceBatch upload(Backend backend, BufferAllocator allocator, DeviceStream stream) {
    try (IntVector k = new IntVector("k", allocator); VarCharVector n = new VarCharVector("n", allocator);
        IntVector v = new IntVector("v", allocator)) {
      k.allocateNew(keys.length);
      n.allocateNew();
      v.allocateNew(keys.length);
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] == null) k.setNull(i);
        else k.set(i, keys[i]);
        if (names[i] == null) n.setNull(i);
        else n.setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
        if (values[i] == null) v.setNull(i);
        else v.set(i, values[i]);
      }
      k.setValueCount(keys.length);
      n.setValueCount(keys.length);
      v.setValueCount(keys.length);
      DeviceBatch batch = ArrowUpload.upload(backend, List.<FieldVector>of(k, n, v), stream);
      stream.synchronize();
      return batch;
    }
  }
}
