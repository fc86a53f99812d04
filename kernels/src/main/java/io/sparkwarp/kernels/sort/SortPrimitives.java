package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.List;

/**
 * The device side of {@link DeviceSort}'s LSD radix sort: statistics of the key columns, one digit per row for each
 * pass, and the stable grouping of rows by digit that composes the passes; or, for keys that fit one 64-bit word
 * ({@link PackedKeys}), passes over (word, row id) pairs that read the digit from the word, placed by digit
 * histograms of all passes counted up front. A fixed-width value's digits are the bytes of its sortable key, an
 * unsigned integer whose unsigned order is Spark's ascending order (signed values with the sign bit flipped; floats as
 * SQLOrderingUtil orders them: -0.0 as 0.0, every NaN alike and above +Infinity); a string's or binary's digit at a
 * byte position is that byte + 1, or 0 past its end. CUDA: {@code sort.cu}, {@code sort_keys.cuh}, {@code
 * grouping.cu}, {@code block_grouping.cuh}, {@code onesweep.cuh}. Every method is asynchronous.
 */
public interface SortPrimitives {
  /** int64 words of one key column's statistics. */
  int STATISTICS_WORDS = 6;
  /** The position of the pass that orders by nullness alone (2 digits). */
  int NULLS = -1;
  /** int32 cells of {@link #digitCounts} a pass: one a digit of up to {@link PackedKeys#DIGIT_BITS} bits. */
  int DIGIT_CELLS = 1 << PackedKeys.DIGIT_BITS;
  /** The most passes of one {@link #digitCounts}: a 64-bit word's digits of {@link PackedKeys#DIGIT_BITS} bits. */
  int MAX_PASSES = 64 / PackedKeys.DIGIT_BITS;

  /**
   * Writes the statistics of rows [0, rows) of {@code key} into int64 words [at, at + STATISTICS_WORDS) of
   * {@code stats}, zeroed before: the OR of every valid row's sortable key (low word, high word), the OR of its
   * complement (low, high), so that a bit set in both varies; the longest valid string or binary in bytes; the
   * count of nulls.
   */
  void keyStatistics(DeviceColumn key, int rows, DeviceBuffer stats, int at, DeviceStream stream);

  /**
   * Adds the count of nulls among rows [0, rows) of {@code key} into word {@code at + 5} of {@code stats}: the last
   * of {@link #keyStatistics}' words alone, from the validity bits, for keys packed at their full width.
   */
  void nullCount(DeviceColumn key, int rows, DeviceBuffer stats, int at, DeviceStream stream);

  /**
   * digits[j] (int32) = digit {@code position} of row order[j] of {@code key} (row j where {@code order} is null),
   * for j in [0, rows): byte {@code position} (0: least significant) of a fixed-width value's sortable key, or the
   * digit of byte position {@code position} of a string or binary; {@code buckets(kind) - 1 - digit} when
   * descending. A null row gets 0.
   */
  void digits(DeviceColumn key, int rows, DeviceBuffer order, int position, boolean ascending, DeviceBuffer digits,
      DeviceStream stream);

  /** digits[j] = 0 where row order[j] of {@code key} sorts first by nullness (a null when nullsFirst), else 1. */
  void nullDigits(DeviceColumn key, int rows, DeviceBuffer order, boolean nullsFirst, DeviceBuffer digits,
      DeviceStream stream);

  /**
   * out[0, rows) = order[i] (i itself where {@code order} is null) for the i grouped by digits[i] in [0, buckets),
   * in input order within a digit: one stable pass, composed with the order it refines. {@code out} must not be
   * {@code order}.
   */
  void groupByDigit(DeviceBuffer digits, int rows, int buckets, DeviceBuffer order, DeviceBuffer out,
      DeviceStream stream);

  /**
   * The digit histograms of every pass of a run of {@link #pairPass}es, in one read of the words: counts[p *
   * {@link #DIGIT_CELLS} + d] (int32, every cell written) = the rows whose word has digit d in pass p of
   * {@code passes} (bits [shift, shift + bits) of the word), for rows [0, rows). The words are {@code words}, or
   * where that is null packed from the key columns of {@code keys} as {@link #pairPass} packs them; then, unless
   * {@code packed} is null, also written to packed[0, rows) (uint64), so that the first pass reads them as words
   * instead of packing them again. At most {@link #MAX_PASSES} passes.
   */
  void digitCounts(PackedKeys keys, DeviceBuffer words, int rows, List<PackedKeys.Pass> passes, DeviceBuffer counts,
      DeviceBuffer packed, DeviceStream stream);

  /**
   * One stable pass over (word, row id) pairs: out[j] for j in [0, rows) = the pairs grouped by digit bits [shift,
   * shift + bits) of their word, in input order within a digit, written as wordsOut[j] (uint64, unless
   * {@code wordsOut} is null: the last pass needs only the order) and rowIdsOut[j] (int32). Row i's pair is
   * (words[i], rowIds[i]); where {@code words} is null (the first pass) its word is packed from the key columns of
   * {@code keys} as sort_keys.cuh's packed_words does, and where {@code rowIds} is null its id is i. Digit d's rows
   * start after those of the digits below it, as counted by {@link #digitCounts} at cells [pass *
   * {@link #DIGIT_CELLS}, + {@link #DIGIT_CELLS}) of {@code counts} (this pass's histogram). bits in [1,
   * {@link PackedKeys#DIGIT_BITS}]; no output may be an input.
   */
  void pairPass(PackedKeys keys, DeviceBuffer words, DeviceBuffer rowIds, int rows, int shift, int bits,
      DeviceBuffer counts, int pass, DeviceBuffer wordsOut, DeviceBuffer rowIdsOut, DeviceStream stream);

  /**
   * ranks[order[j]] = j for j in [0, rows) (int32): the position of each row in {@code order}, a permutation of
   * [0, rows); an id outside it is skipped.
   */
  void ranks(DeviceBuffer order, int rows, DeviceBuffer ranks, DeviceStream stream);

  /**
   * rowIds[g] = order[p] (int32) for p = positions[g] where that row is valid and p in [0, rows), else -1, for g in
   * [0, positions.rowCount()): the rows at some positions of {@code order} (a gather makes the -1 rows null).
   */
  void rowsAt(DeviceColumn positions, DeviceBuffer order, int rows, DeviceBuffer rowIds, DeviceStream stream);

  /** The argument checks both backends make before {@link #ranks}. */
  static void checkRanksArguments(DeviceBuffer order, int rows, DeviceBuffer ranks) {
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    order.checkRange(0, 4L * rows);
    ranks.checkRange(0, 4L * rows);
  }

  /** The argument checks both backends make before {@link #digitCounts}. */
  static void checkCountArguments(PackedKeys keys, DeviceBuffer words, int rows, List<PackedKeys.Pass> passes,
      DeviceBuffer counts, DeviceBuffer packed) {
    checkWords(keys, words, rows);
    if (packed != null) {
      if (keys == null) throw new IllegalArgumentException("only words packed from key columns are written out");
      packed.checkRange(0, 8L * rows);
    }
    if (passes.isEmpty() || passes.size() > MAX_PASSES) {
      throw new IllegalArgumentException(passes.size() + " passes (1 to " + MAX_PASSES + ")");
    }
    for (PackedKeys.Pass pass : passes) checkDigit(pass.shift(), pass.bits());
    counts.checkRange(0, 4L * DIGIT_CELLS * passes.size());
  }

  /** The argument checks both backends make before {@link #pairPass}. */
  static void checkPairArguments(PackedKeys keys, DeviceBuffer words, DeviceBuffer rowIds, int rows, int shift,
      int bits, DeviceBuffer counts, int pass, DeviceBuffer wordsOut, DeviceBuffer rowIdsOut) {
    checkWords(keys, words, rows);
    checkDigit(shift, bits);
    if (pass < 0 || pass >= MAX_PASSES) throw new IllegalArgumentException("no pass " + pass);
    counts.checkRange(4L * DIGIT_CELLS * pass, 4L * DIGIT_CELLS);
    if (rowIds != null) rowIds.checkRange(0, 4L * rows);
    if (wordsOut != null) wordsOut.checkRange(0, 8L * rows);
    rowIdsOut.checkRange(0, 4L * rows);
    for (DeviceBuffer out : new DeviceBuffer[] {wordsOut, rowIdsOut}) {
      if (out != null && (out == words || out == rowIds || out == counts)) {
        throw new IllegalArgumentException("a pair pass cannot write what it reads");
      }
    }
  }

  private static void checkDigit(int shift, int bits) {
    if (bits < 1 || bits > PackedKeys.DIGIT_BITS || shift < 0 || shift + bits > 64) {
      throw new IllegalArgumentException("no digit of " + bits + " bits at bit " + shift + " of a 64-bit word");
    }
  }

  /** Either packed keys or words, of at least {@code rows} rows. */
  private static void checkWords(PackedKeys keys, DeviceBuffer words, int rows) {
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    if ((keys == null) == (words == null)) {
      throw new IllegalArgumentException("a pair pass reads either packed keys or words, not " + (keys == null
          ? "neither" : "both"));
    }
    if (keys != null) {
      for (PackedKeys.Field field : keys.fields()) {
        if (field.column().rowCount() < rows) {
          throw new IllegalArgumentException("a key column of " + field.column().rowCount() + " rows for " + rows
              + " rows");
        }
      }
    } else {
      words.checkRange(0, 8L * rows);
    }
  }

  /** The argument checks both backends make before {@link #rowsAt}. */
  static void checkRowsAtArguments(DeviceColumn positions, DeviceBuffer order, int rows, DeviceBuffer rowIds) {
    if (positions.type().kind() != DeviceType.Kind.INT) {
      throw new IllegalArgumentException("positions of type " + positions.type() + " (INT expected)");
    }
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    order.checkRange(0, 4L * rows);
    rowIds.checkRange(0, 4L * positions.rowCount());
  }

  /** The digits of a value pass over a column of {@code kind}: 2 for booleans, 257 for strings, 256 otherwise. */
  static int buckets(DeviceType.Kind kind) {
    return switch (kind) {
      case BOOLEAN -> 2;
      case STRING, BINARY -> 257;
      default -> 256;
    };
  }

  /** The argument checks both backends make before {@link #keyStatistics}. */
  static void checkStatisticsArguments(DeviceColumn key, int rows, DeviceBuffer stats, int at) {
    checkRows(key, rows);
    if (at < 0) throw new IllegalArgumentException("negative statistics word " + at);
    stats.checkRange(8L * at, 8L * STATISTICS_WORDS);
  }

  /** The argument checks both backends make before {@link #digits} and {@link #nullDigits}. */
  static void checkDigitArguments(DeviceColumn key, int rows, DeviceBuffer order, int position, DeviceBuffer digits) {
    checkRows(key, rows);
    if (order != null) order.checkRange(0, 4L * rows);
    digits.checkRange(0, 4L * rows);
    DeviceType type = key.type();
    int positions = type.isVariableWidth() ? Integer.MAX_VALUE : type.isBitPacked() ? 1 : type.width();
    if (position != NULLS && (position < 0 || position >= positions)) {
      throw new IllegalArgumentException("no digit " + position + " in a " + type + " key");
    }
  }

  /** The argument checks both backends make before {@link #groupByDigit}. */
  static void checkGroupArguments(DeviceBuffer digits, int rows, int buckets, DeviceBuffer order, DeviceBuffer out) {
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    if (buckets < 1) throw new IllegalArgumentException("buckets " + buckets + " is below 1");
    if (order == out) throw new IllegalArgumentException("a pass cannot write the order it reads");
    digits.checkRange(0, 4L * rows);
    if (order != null) order.checkRange(0, 4L * rows);
    out.checkRange(0, 4L * rows);
  }

  private static void checkRows(DeviceColumn key, int rows) {
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    if (key.rowCount() < rows) {
      throw new IllegalArgumentException("a key column of " + key.rowCount() + " rows for " + rows + " rows");
    }
  }
}
