package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.parquet.ColumnSpec;
import io.sparkwarp.kernels.parquet.PageTable;

/**
 * Offsets of the arrays one column's decoding keeps on the device (parquet.cu's sw_pq_prepare outputs, the string
 * row slots, the booleans' bytes before packing), carved from one allocation.
 */
final class DecodeScratch {
  final long defined;
  final long indices;
  final long deltas;
  final long valueStart;
  final long slotStart;
  final long slotLength;
  /** Strings: each row's slot (sw_pq_string_lengths). */
  final long rowSlot;
  /** Booleans: a byte a row, packed into the column's bits after. */
  final long bits;
  private final long bytes;

  DecodeScratch(PageTable table, ColumnSpec spec, boolean strings) {
    long rows = table.rowCount();
    long slots = table.stringSlots(spec.physical());
    Carving carving = new Carving();
    defined = carving.take(rows);
    indices = carving.take(4 * rows);
    deltas = carving.take(table.needsRowWords() ? 8 * rows : 0);
    valueStart = carving.take(8L * table.count());
    slotStart = carving.take(4 * slots);
    slotLength = carving.take(4 * slots);
    rowSlot = carving.take(strings ? 4 * rows : 0);
    bits = carving.take(spec.output().isBitPacked() ? rows : 0);
    bytes = carving.bytes();
  }

  long bytes() {
    return bytes;
  }
}
