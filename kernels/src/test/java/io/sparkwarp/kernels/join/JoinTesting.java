package io.sparkwarp.kernels.join;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;

/** Join test helpers: an obviously right nested-loop oracle over Arrow vectors, and chunked probes read back. */
public final class JoinTesting {
  private JoinTesting() {}

  /** Strings of one to many bytes for key columns: empty, multi-byte UTF-8, longer than 32 bytes. */
  private static final String[] WORDS = {"", "a", "ü", "日本語", "a😀b", "green", "special requests", "a key longer "
      + "than thirty-two bytes, to span lanes"};

  /** One of {@link #WORDS} as UTF-8 bytes, at random. */
  static byte[] word(Random rnd) {
    return WORDS[rnd.nextInt(WORDS.length)].getBytes(StandardCharsets.UTF_8);
  }

  /** A key value as Java compares it: bytes by content. */
  static Object value(FieldVector v, int row) {
    Object o = v.getObject(row);
    if (o instanceof byte[] b) return ByteBuffer.wrap(b);
    return o == null ? null : o.toString();
  }

  /**
   * Every (probe row, build row) pair with equal keys (null equals null only where {@code nullSafe}), probe rows
   * limited to {@code selected} (null: all), as sorted {@code probe << 32 | build} codes.
   */
  public static long[] expectedPairs(List<FieldVector> build, List<FieldVector> probe, boolean[] nullSafe,
      boolean[] selected) {
    int nb = build.get(0).getValueCount();
    int np = probe.get(0).getValueCount();
    List<Long> out = new ArrayList<>();
    for (int p = 0; p < np; p++) {
      if (selected != null && !selected[p]) continue;
      for (int b = 0; b < nb; b++) {
        boolean eq = true;
        for (int c = 0; c < build.size() && eq; c++) {
          Object x = value(probe.get(c), p);
          Object y = value(build.get(c), b);
          eq = x == null || y == null ? x == null && y == null && nullSafe[c] : Objects.equals(x, y);
        }
        if (eq) out.add((long) p << 32 | b);
      }
    }
    return out.stream().mapToLong(Long::longValue).sorted().toArray();
  }

  /**
   * Every chunk's pairs from START to the end, each chunk checked against the capacity, as sorted codes; matched
   * build rows are marked in {@code buildMatches} unless it is null.
   */
  public static long[] probeAll(Backend backend, HashTable table, ProbeBatch batch, int capacity,
      ProbeVariant variant, DeviceBuffer buildMatches, DeviceStream stream) {
    List<long[]> chunks = new ArrayList<>();
    ProbePosition at = ProbePosition.START;
    while (true) {
      try (ProbeResult r = backend.joins().probe(table, batch, at, capacity, variant, buildMatches,
          stream)) {
        assertTrue(r.pairCount() <= capacity, r.pairCount() + " pairs in a chunk of " + capacity);
        int[] p = ints(backend, r.probeRows(), r.pairCount(), stream);
        int[] b = ints(backend, r.buildRows(), r.pairCount(), stream);
        long[] codes = new long[p.length];
        for (int i = 0; i < p.length; i++) codes[i] = (long) p[i] << 32 | b[i];
        chunks.add(codes);
        if (r.isLast()) break;
        assertTrue(r.next().row() > at.row() || r.next().offset() > at.offset(), "chunk made no progress at " + at);
        at = r.next();
      }
    }
    return chunks.stream().flatMapToLong(Arrays::stream).sorted().toArray();
  }

  /** The first {@code n} int32 of a device buffer. */
  public static int[] ints(Backend backend, DeviceBuffer buffer, int n, DeviceStream stream) {
    int[] out = new int[n];
    try (HostBlock host = backend.transferMemory().pool().allocate(Math.max(4L, 4L * n))) {
      backend.copyDeviceToHost(buffer, 0, host.address(), 4L * n, stream);
      stream.synchronize();
      for (int i = 0; i < n; i++) out[i] = MemoryUtil.getInt(host.address() + 4L * i);
    }
    return out;
  }

  /** The first {@code n} bytes of a device buffer. */
  public static byte[] bytes(Backend backend, DeviceBuffer buffer, long n, DeviceStream stream) {
    byte[] out = new byte[(int) n];
    try (HostBlock host = backend.transferMemory().pool().allocate(Math.max(1, n))) {
      backend.copyDeviceToHost(buffer, 0, host.address(), n, stream);
      stream.synchronize();
      MemoryUtil.copyFromMemory(host.address(), out, 0, n);
    }
    return out;
  }

  /** An int32 device buffer holding {@code values}. */
  public static DeviceBuffer upload(Backend backend, int[] values, DeviceStream stream) {
    DeviceBuffer d = backend.allocate(Math.max(4L, 4L * values.length), stream);
    try (HostBlock host = backend.transferMemory().pool().allocate(Math.max(4L, 4L * values.length))) {
      for (int i = 0; i < values.length; i++) MemoryUtil.putInt(host.address() + 4L * i, values[i]);
      backend.copyHostToDevice(host.address(), d, 0, 4L * values.length, stream);
      stream.synchronize();
    } catch (RuntimeException e) {
      d.close();
      throw e;
    }
    return d;
  }

  /** An Arrow-order bitmap on the device with bit i set where {@code bits[i]}. */
  public static DeviceBuffer bitmap(Backend backend, boolean[] bits, DeviceStream stream) {
    long bytes = Math.max(1, (bits.length + 7) / 8);
    DeviceBuffer d = backend.allocate(bytes, stream);
    try (HostBlock host = backend.transferMemory().pool().allocate(bytes)) {
      MemoryUtil.setMemory(host.address(), bytes, (byte) 0);
      for (int i = 0; i < bits.length; i++) {
        if (bits[i]) {
          long at = host.address() + i / 8;
          MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | 1 << (i % 8)));
        }
      }
      backend.copyHostToDevice(host.address(), d, 0, bytes, stream);
      stream.synchronize();
    } catch (RuntimeException e) {
      d.close();
      throw e;
    }
    return d;
  }

  /** The rows (probe: high half, build: low half of the codes) that occur in {@code pairs}, as a bitmap array. */
  public static boolean[] matched(long[] pairs, int rows, boolean probeSide) {
    boolean[] out = new boolean[rows];
    for (long code : pairs) out[probeSide ? (int) (code >>> 32) : (int) code] = true;
    return out;
  }
}
