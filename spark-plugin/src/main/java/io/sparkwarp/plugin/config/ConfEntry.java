package io.sparkwarp.plugin.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One {@code spark.warp.*} setting: key, type, default and doc in one place, and a parser that rejects a bad value
 * with a message naming the key and what it accepts.
 *
 * @param scope whether the value may change per query (session) or is fixed when the application starts (static)
 */
public record ConfEntry<T>(String key, String type, String defaultValue, String doc, Scope scope,
    Function<String, T> parser) {
  /** When a setting is read. */
  public enum Scope {
    /** read from the session's SQL conf for every query; {@code spark.conf.set} changes it */
    SESSION,
    /** read once when the application (driver or executor) starts */
    STATIC
  }

  /** Parses {@code value}, or the default when it is null. */
  public T parse(String value) {
    String v = value == null ? defaultValue : value.trim();
    try {
      return parser.apply(v);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(key + " must be " + type + ", not '" + value + "'", e);
    }
  }

  static ConfEntry<Boolean> bool(String key, boolean dflt, Scope scope, String doc) {
    return new ConfEntry<>(key, "true or false", Boolean.toString(dflt), doc, scope, v -> switch (
        v.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(v);
    });
  }

  static ConfEntry<Long> bytes(String key, long dflt, Scope scope, String doc) {
    return new ConfEntry<>(key, "a number of bytes >= 0 (suffixes k, m, g allowed)", Long.toString(dflt), doc, scope,
        ConfEntry::parseBytes);
  }

  static ConfEntry<Integer> positiveInt(String key, int dflt, Scope scope, String doc) {
    return new ConfEntry<>(key, "an integer >= 1", Integer.toString(dflt), doc, scope, v -> {
      int i = Integer.parseInt(v);
      if (i < 1) throw new IllegalArgumentException(v);
      return i;
    });
  }

  static ConfEntry<Integer> nonNegativeInt(String key, int dflt, Scope scope, String doc) {
    return new ConfEntry<>(key, "an integer >= 0", Integer.toString(dflt), doc, scope, v -> {
      int i = Integer.parseInt(v);
      if (i < 0) throw new IllegalArgumentException(v);
      return i;
    });
  }

  static ConfEntry<Set<String>> names(String key, Scope scope, String doc) {
    return new ConfEntry<>(key, "a comma-separated list of names", "", doc, scope,
        v -> Arrays.stream(v.split(",")).map(String::strip).filter(n -> !n.isEmpty()).collect(Collectors.toSet()));
  }

  static <E extends Enum<E>> ConfEntry<E> oneOf(String key, Class<E> type, E dflt, Scope scope, String doc) {
    List<String> names = Arrays.stream(type.getEnumConstants()).map(Enum::name).toList();
    return new ConfEntry<>(key, "one of " + String.join(", ", names), dflt.name(), doc, scope,
        v -> Enum.valueOf(type, v.toUpperCase(Locale.ROOT)));
  }

  static long parseBytes(String v) {
    String s = v.toLowerCase(Locale.ROOT);
    long unit = 1;
    if (s.endsWith("b")) s = s.substring(0, s.length() - 1);
    switch (s.isEmpty() ? ' ' : s.charAt(s.length() - 1)) {
      case 'k' -> unit = 1L << 10;
      case 'm' -> unit = 1L << 20;
      case 'g' -> unit = 1L << 30;
      default -> unit = 1;
    }
    if (unit != 1) s = s.substring(0, s.length() - 1);
    long n = Long.parseLong(s.trim());
    if (n < 0) throw new IllegalArgumentException(v);
    return Math.multiplyExact(n, unit);
  }
}
