package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceColumn;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A Spark column whose values are on the GPU. Only GPU operators read it (through {@link #column()}); a CPU
 * operator gets rows or host columns through GpuToHostExec, so every value accessor here refuses.
 */
public final class DeviceColumnVector extends ColumnVector {
  private final DeviceColumn column;

  public DeviceColumnVector(DataType type, DeviceColumn column) {
    super(type);
    this.column = column;
  }

  public DeviceColumn column() {
    return column;
  }

  @Override
  public void close() {
    column.close();
  }

  private UnsupportedOperationException onDevice() {
    return new UnsupportedOperationException("this column is on the GPU; a CPU operator must read it through "
        + "GpuToHostExec (a missing transition is a sparkwarp bug)");
  }

  @Override
  public boolean hasNull() {
    throw onDevice();
  }

  @Override
  public int numNulls() {
    throw onDevice();
  }

  @Override
  public boolean isNullAt(int rowId) {
    throw onDevice();
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw onDevice();
  }

  @Override
  public byte getByte(int rowId) {
    throw onDevice();
  }

  @Override
  public short getShort(int rowId) {
    throw onDevice();
  }

  @Override
  public int getInt(int rowId) {
    throw onDevice();
  }

  @Override
  public long getLong(int rowId) {
    throw onDevice();
  }

  @Override
  public float getFloat(int rowId) {
    throw onDevice();
  }

  @Override
  public double getDouble(int rowId) {
    throw onDevice();
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw onDevice();
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw onDevice();
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw onDevice();
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw onDevice();
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw onDevice();
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw onDevice();
  }
}
