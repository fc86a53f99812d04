package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.List;

/**
 * {@link DeviceSort#top}, selecting before it sorts: where the rows are many more than the limit, a radix select over
 * the first key's prefixes ({@link TopSelectPrimitives}) finds a cutoff prefix with at least {@code limit} rows at
 * or below it, byte by byte from the top (a histogram of the byte among the rows that agree with the bytes pinned so
 * far, then the byte of the limit-th row pinned), until few enough rows remain. The rows above the cutoff are
 * dropped: each has at least {@code limit} rows with smaller prefixes, which sort strictly before it. The rest, the
 * candidates, are gathered in input order and sorted by {@link DeviceSort} and cut to the limit, so ties keep input
 * order as they do without the select, and rows that share the cutoff prefix are sorted by every key: correctness
 * never depends on the prefix telling rows apart.
 */
public final class TopSelect {
  /** Candidates are few enough to sort once they are at most this many times the limit. */
  static final int CANDIDATE_FACTOR = 4;

  private TopSelect() {}

  /** The first min(limit, rowCount) rows of the batch in the keys' order, ties in input order (input left open). */
  public static DeviceBatch top(Backend backend, DeviceBatch batch, List<SortKey> keys, int limit,
      DeviceStream stream) {
    int rows = batch.rowCount();
    if (limit == 0 || rows <= (long) CANDIDATE_FACTOR * limit) return DeviceSort.top(backend, batch, keys, limit, stream);
    SortKey first = keys.get(0);
    TopSelectPrimitives select = backend.topSelect();
    try (DeviceBuffer prefixes = backend.allocate(8L * rows, stream)) {
      select.prefixes(batch.column(first.column()), first.ascending(), first.nullsFirst(), rows, prefixes, stream);
      Cutoff cutoff = cutoff(select, prefixes, rows, limit, stream);
      if (cutoff.candidates() == rows) return DeviceSort.top(backend, batch, keys, limit, stream);  // none dropped
      // the ids and candidates go back to the stream-ordered pool after the work that reads them
      try (DeviceBuffer ids = backend.allocate(4L * cutoff.candidates(), stream)) {
        select.candidates(prefixes, rows, cutoff.prefix(), ids, stream);
        try (DeviceBatch candidates = backend.joins().gather(batch, ids, cutoff.candidates(), stream)) {
          return DeviceSort.top(backend, candidates, keys, limit, stream);
        }
      }
    }
  }

  /** The rows at or below {@code prefix} (unsigned) are the candidates, {@code candidates} of them. */
  record Cutoff(long prefix, int candidates) {}

  /** The radix select: bytes pinned from the top while more than {@link #CANDIDATE_FACTOR} x limit rows remain. */
  static Cutoff cutoff(TopSelectPrimitives select, DeviceBuffer prefixes, int rows, int limit, DeviceStream stream) {
    long pinned = 0;
    int before = 0;  // rows below the pinned bytes: all of them candidates
    int candidates = rows;
    int shift = 64;
    while (shift > 0 && candidates > (long) CANDIDATE_FACTOR * limit) {
      shift -= 8;
      int[] counts = select.histogram(prefixes, rows, shift, pinned, stream);
      int b = 0;
      while (before + counts[b] < limit) before += counts[b++];
      pinned |= (long) b << shift;
      candidates = before + counts[b];
    }
    return new Cutoff(pinned | (shift == 0 ? 0 : (1L << shift) - 1), candidates);
  }
}
