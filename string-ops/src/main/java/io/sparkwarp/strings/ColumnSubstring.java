package io.sparkwarp.strings;

import java.io.Serializable;

/**
 * One substring a compiled expression reads: Spark's {@code substring(s, pos, len)} of the string column {@code
 * column} of a batch, with constant pos and len ({@link io.sparkwarp.kernels.strings.Utf8Substring}).
 */
public record ColumnSubstring(int column, int pos, int len) implements Serializable {}
