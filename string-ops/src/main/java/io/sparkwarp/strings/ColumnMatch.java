package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.StringMatcher;
import java.io.Serializable;

/** One string predicate of a compiled expression: {@code matcher} over the string column {@code column} of a batch. */
public record ColumnMatch(int column, StringMatcher matcher) implements Serializable {}
