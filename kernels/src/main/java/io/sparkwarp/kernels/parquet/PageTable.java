package io.sparkwarp.kernels.parquet;

import java.util.Arrays;

/**
 * The pages of one column in one batch, already decompressed into one pages buffer: dictionary pages and the data
 * pages that fill rows [0, rowCount) in order. Held as {@link #WORDS} int64 words per page, the layout
 * {@code parquet.cu} reads (PageDesc). Only flat columns: definition levels of at most 1, no repetition levels.
 */
public final class PageTable {
  /** int64 words per page. */
  public static final int WORDS = 8;

  /** How a page's values are stored (ordinals shared with parquet.cu). */
  public enum Kind {
    /** PLAIN values. */
    PLAIN,
    /** RLE/bit-packed indices into a dictionary page (PLAIN_DICTIONARY, RLE_DICTIONARY). */
    DICTIONARY_ENCODED,
    /** Booleans in the RLE/bit-packed hybrid with a 4-byte length (what page v2 writers use). */
    RLE_BOOLEAN,
    /** A dictionary: PLAIN values, no rows. */
    DICTIONARY_PAGE,
    /** DELTA_BINARY_PACKED integers (INT32 and INT64 columns). */
    DELTA_BINARY_PACKED,
    /** DELTA_LENGTH_BYTE_ARRAY: the lengths DELTA_BINARY_PACKED, then the bytes (BYTE_ARRAY columns). */
    DELTA_LENGTH_BYTE_ARRAY,
    /** DELTA_BYTE_ARRAY: lengths shared with the value before, then the rest (BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY). */
    DELTA_BYTE_ARRAY,
    /** BYTE_STREAM_SPLIT: byte k of every value, then byte k + 1 (FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY). */
    BYTE_STREAM_SPLIT
  }

  private long[] words = new long[WORDS * 16];
  private int count;
  private long rows;
  private long dictionaryEntries;
  private final int maxDefinition;

  /** @param maxDefinition 1 for an optional column, 0 for a required one */
  public PageTable(int maxDefinition) {
    if (maxDefinition < 0 || maxDefinition > 1) {
      throw new IllegalArgumentException("only flat columns: definition level 0 or 1, not " + maxDefinition);
    }
    this.maxDefinition = maxDefinition;
  }

  /** Adds a dictionary page of {@code entries} PLAIN values; returns its index for the data pages that use it. */
  public int addDictionary(long offset, long bytes, long entries) {
    int index = add(offset, bytes, -1, 0, entries, Kind.DICTIONARY_PAGE, dictionaryEntries);
    dictionaryEntries += entries;
    return index;
  }

  /**
   * Adds the next data page: {@code numValues} rows.
   *
   * @param levelBytes page v2: bytes of its definition levels at {@code offset} (0 for a required column); page v1:
   *     -1 (the levels carry their own 4-byte length)
   * @param dictionary the index of its dictionary page when {@code kind} is DICTIONARY_ENCODED, else -1
   */
  public void addData(long offset, long bytes, long levelBytes, long numValues, Kind kind, int dictionary) {
    if (kind == Kind.DICTIONARY_PAGE) throw new IllegalArgumentException("use addDictionary");
    if ((kind == Kind.DICTIONARY_ENCODED) != (dictionary >= 0)
        || (dictionary >= 0 && (dictionary >= count || kind(dictionary) != Kind.DICTIONARY_PAGE))) {
      throw new IllegalArgumentException("a dictionary-encoded page needs an earlier dictionary page, and only it");
    }
    if (levelBytes > bytes) throw new IllegalArgumentException("levels longer than their page");
    add(offset, bytes, levelBytes, rows, numValues, kind, dictionary);
    rows += numValues;
  }

  private int add(long offset, long bytes, long levelBytes, long rowStart, long numValues, Kind kind, long link) {
    if (offset < 0 || bytes < 0 || numValues < 0) throw new IllegalArgumentException("negative page field");
    if ((count + 1) * WORDS > words.length) words = Arrays.copyOf(words, words.length * 2);
    int w = count * WORDS;
    words[w] = offset;
    words[w + 1] = bytes;
    words[w + 2] = levelBytes;
    words[w + 3] = rowStart;
    words[w + 4] = numValues;
    words[w + 5] = kind.ordinal();
    words[w + 6] = link;
    words[w + 7] = maxDefinition;
    return count++;
  }

  public int count() {
    return count;
  }

  /** Rows of all data pages. */
  public long rowCount() {
    return rows;
  }

  /** Entries of all dictionary pages (the string slots past the rows). */
  public long dictionaryEntries() {
    return dictionaryEntries;
  }

  public int maxDefinition() {
    return maxDefinition;
  }

  public long offset(int page) {
    return words[page * WORDS];
  }

  public long bytes(int page) {
    return words[page * WORDS + 1];
  }

  public long levelBytes(int page) {
    return words[page * WORDS + 2];
  }

  public long rowStart(int page) {
    return words[page * WORDS + 3];
  }

  public long numValues(int page) {
    return words[page * WORDS + 4];
  }

  public Kind kind(int page) {
    return Kind.values()[(int) words[page * WORDS + 5]];
  }

  /** Whether any page is of {@code kind}. */
  public boolean has(Kind kind) {
    for (int p = 0; p < count; p++) {
      if (kind(p) == kind) return true;
    }
    return false;
  }

  /**
   * Whether decoding keeps a 64-bit word per row: DELTA_BINARY_PACKED values, and fixed-length DELTA_BYTE_ARRAY ones
   * rebuilt from their prefixes.
   */
  public boolean needsRowWords() {
    return has(Kind.DELTA_BINARY_PACKED) || has(Kind.DELTA_BYTE_ARRAY);
  }

  /**
   * String slots decoding keeps (a start and a length each), one per row and dictionary entry for byte arrays and for
   * DELTA_BYTE_ARRAY suffixes of any type, else none.
   */
  public long stringSlots(PhysicalType physical) {
    return physical == PhysicalType.BYTE_ARRAY || has(Kind.DELTA_BYTE_ARRAY) ? rows + dictionaryEntries : 0;
  }

  /** A data page's dictionary page; a dictionary page's first string slot past the rows. */
  public long link(int page) {
    return words[page * WORDS + 6];
  }

  /** The table's words, {@link #WORDS} per page. */
  public long[] words() {
    return Arrays.copyOf(words, count * WORDS);
  }

  /** Throws unless every page lies inside a pages buffer of {@code pagesBytes}, which int32 slots can address. */
  public void checkRanges(long pagesBytes) {
    if (pagesBytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a pages buffer of " + pagesBytes + " bytes is past 2^31 - 1");
    }
    for (int p = 0; p < count; p++) {
      if (offset(p) + bytes(p) > pagesBytes) {
        throw new IllegalArgumentException("page " + p + " lies outside the pages buffer (" + pagesBytes + " bytes)");
      }
    }
  }
}
