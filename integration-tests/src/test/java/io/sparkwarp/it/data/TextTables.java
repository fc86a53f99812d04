package io.sparkwarp.it.data;

import java.util.List;
import java.util.Random;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * Views for the string predicates, registered once per JVM: {@value #TEXTS} ({@value #ROWS} rows as Parquet) with
 * {@code id} (unique long), {@code s} (text of words, some near misses of the test patterns, LIKE's own
 * metacharacters and escapes, multi-byte UTF-8 of 2 to 4 bytes, line terminators including \r\n and U+2028, empty
 * strings, nulls), {@code short_s} (at most 6 bytes, for the plain layout) and {@code long_s} (0.5 to 5 KB, for the
 * self-pivoted layout).
 */
public final class TextTables {
  public static final String TEXTS = "texts";
  public static final int ROWS = 3000;

  /** Words the test patterns look for, and their near misses. */
  private static final List<String> WORDS = List.of("green", "gren", "greeen", "forest", "forests", "PROMO",
      "promo", "BRASS", "brass", "special", "requests", "Customer", "Complaints", "MEDIUM", "POLISHED", "abc", "a",
      "b", "c", "x", "y", "zz", "12", "345", "é", "€", "中文", "😀", "ß", "%", "_", "\\", "!", "\n", "\r\n", "\r",
      "\u2028", "\u0085", " ", "  ", "\t", "a_c", "a%c", "\\%", "ab\\");
  private static final List<Object> SPECIALS = List.of("", " ", "green", "forest", "PROMO BRUSHED", "LARGE BRASS",
      "MEDIUM POLISHED STEEL", "special requests", "Customer Complaints", "%", "_", "\\", "a\n", "a\r\n", "\n",
      "abc\u2028", "é", "😀", "€a€", "aaaaaaaaab", "abababababac");

  private static boolean registered;

  private TextTables() {}

  public static synchronized void register(SparkSession spark) {
    if (registered) return;
    TableGen.rows(ROWS)
        .column("id", Gens.uniqueLongs())
        .column("s", new ColumnGen(DataTypes.StringType, SPECIALS, (r, row) -> words(r, 1 + r.nextInt(8))))
        .column("short_s", new ColumnGen(DataTypes.StringType, List.of("", "a", "é", "_", "%"),
            (r, row) -> shortWord(r)))
        .column("long_s", new ColumnGen(DataTypes.StringType, List.of("", "green"),
            (r, row) -> words(r, 100 + r.nextInt(800))))
        .parquetView(spark, TEXTS);
    registered = true;
  }

  private static String words(Random r, int count) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < count; i++) {
      if (i > 0 && r.nextInt(3) > 0) s.append(' ');
      s.append(WORDS.get(r.nextInt(WORDS.size())));
    }
    return s.toString();
  }

  private static String shortWord(Random r) {
    String w = WORDS.get(r.nextInt(WORDS.size()));
    return w.length() > 6 ? w.substring(0, 6) : w;
  }
}
