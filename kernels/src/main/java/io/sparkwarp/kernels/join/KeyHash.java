package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.batch.DeviceColumn;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Join keys read from host-addressable memory (the host backend's "device" memory): joinability, hashes bit-exact
 * with hash.cuh and join_keys.cuh, and equality. The host reference kernels are built on it.
 */
public final class KeyHash {
  private static final long MULTIPLIER = 0x9E3779B97F4A7C15L;
  private static final long NULL_KEY_HASH = 0x5BD1E9955BD1E995L;

  private KeyHash() {}

  static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xFF51AFD7ED558CCDL;
    k ^= k >>> 33;
    k *= 0xC4CEB9FE1A85EC53L;
    k ^= k >>> 33;
    return k;
  }

  static long hashBytes(long address, int length) {
    long h = fmix64(length ^ MULTIPLIER);
    for (int i = 0; i < length; i += 8) {
      int n = Math.min(8, length - i);
      long w = 0;
      for (int k = 0; k < n; k++) w |= (MemoryUtil.getByte(address + i + k) & 0xFFL) << (8 * k);
      h = (h ^ fmix64(w)) * MULTIPLIER;
    }
    return fmix64(h);
  }

  static boolean valid(DeviceColumn c, long row) {
    return (MemoryUtil.getByte(c.validity().address() + (row >>> 3)) >> (row & 7) & 1) != 0;
  }

  static long intValue(DeviceColumn c, int kind, long row) {
    return kind == JoinKeys.INT32 ? MemoryUtil.getInt(c.data().address() + 4 * row)
        : MemoryUtil.getLong(c.data().address() + 8 * row);
  }

  static int byteStart(DeviceColumn c, long row) {
    return MemoryUtil.getInt(c.offsets().address() + 4 * row);
  }

  static int byteLength(DeviceColumn c, long row) {
    return MemoryUtil.getInt(c.offsets().address() + 4 * row + 4) - byteStart(c, row);
  }

  /** Whether {@code row} can match at all: no null in a column that is not null-safe. */
  public static boolean joinable(JoinKeys keys, long row) {
    for (int i = 0; i < keys.columns().size(); i++) {
      if (!keys.nullSafe(i) && !valid(keys.column(i), row)) return false;
    }
    return true;
  }

  /** The key hash of {@code row}, equal to the kernels' key_hash. */
  public static long hash(JoinKeys keys, long row) {
    long h = 0;
    for (DeviceColumn c : keys.columns()) {
      int kind = JoinKeys.kind(c.type());
      long ch;
      if (!valid(c, row)) {
        ch = NULL_KEY_HASH;
      } else if (kind == JoinKeys.BYTES) {
        ch = hashBytes(c.data().address() + byteStart(c, row), byteLength(c, row));
      } else {
        ch = fmix64(intValue(c, kind, row));
      }
      h = fmix64(h * MULTIPLIER + ch);
    }
    return h;
  }

  /** Whether row {@code ra} of {@code a} and row {@code rb} of {@code b} have equal keys (null equals null). */
  public static boolean equal(JoinKeys a, long ra, JoinKeys b, long rb) {
    for (int i = 0; i < a.columns().size(); i++) {
      DeviceColumn ca = a.column(i);
      DeviceColumn cb = b.column(i);
      boolean va = valid(ca, ra);
      boolean vb = valid(cb, rb);
      if (!va || !vb) {
        if (va || vb) return false;
        continue;
      }
      int kind = JoinKeys.kind(ca.type());
      if (kind != JoinKeys.BYTES) {
        if (intValue(ca, kind, ra) != intValue(cb, kind, rb)) return false;
        continue;
      }
      int length = byteLength(ca, ra);
      if (length != byteLength(cb, rb)) return false;
      long pa = ca.data().address() + byteStart(ca, ra);
      long pb = cb.data().address() + byteStart(cb, rb);
      for (int k = 0; k < length; k++) {
        if (MemoryUtil.getByte(pa + k) != MemoryUtil.getByte(pb + k)) return false;
      }
    }
    return true;
  }
}
