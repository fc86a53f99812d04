package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.SegmentMatcher;

/**
 * Spark's literal string predicates, {@code StartsWith}, {@code EndsWith}, {@code Contains} and equality with a
 * literal (UTF8_BINARY collation): byte comparisons of the UTF-8 value, so always a {@link SegmentMatcher}.
 */
public final class LiteralMatchers {
  private LiteralMatchers() {}

  public static CompiledPattern startsWith(byte[] prefix) {
    return new CompiledPattern.Supported(SegmentMatcher.startsWith(prefix));
  }

  public static CompiledPattern endsWith(byte[] suffix) {
    return new CompiledPattern.Supported(SegmentMatcher.endsWith(suffix));
  }

  public static CompiledPattern contains(byte[] segment) {
    return new CompiledPattern.Supported(SegmentMatcher.contains(segment));
  }

  public static CompiledPattern equalTo(byte[] value) {
    return new CompiledPattern.Supported(SegmentMatcher.equalTo(value));
  }
}
