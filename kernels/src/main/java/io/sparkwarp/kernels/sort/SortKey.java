package io.sparkwarp.kernels.sort;

/**
 * One sort key: column index in the batch, direction, and where nulls go. Descending reverses the order of values
 * only; {@code nullsFirst} places nulls on its own, as Spark's {@code SortOrder} does.
 */
public record SortKey(int column, boolean ascending, boolean nullsFirst) implements java.io.Serializable {}
