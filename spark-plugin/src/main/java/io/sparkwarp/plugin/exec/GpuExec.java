package io.sparkwarp.plugin.exec;

/**
 * Marks the operators whose output is device batches ({@link DeviceColumnVector}s): a CPU operator above one needs
 * a GpuToHostExec, and a GPU operator above anything else needs a HostToGpuExec.
 */
public interface GpuExec {}
