package io.sparkwarp.examples.report;

import java.nio.file.Path;
import java.util.List;

/**
 * What one run of {@code MultiDeviceJoinBenchmark} measured, as written to and read from JSON.
 *
 * @param backend cuda or host
 * @param devices the devices' descriptions, device 0 first
 * @param directPeerAccess whether copies between devices 0 and 1 go directly (NVLink or PCIe peer to peer)
 * @param copyBytes bytes of each peer copy
 * @param copies the peer copies: 0 to 1, 1 to 0, both at once
 * @param rowsPerSide rows of each join side
 * @param matchesPerKey build rows sharing each key (each stream row matches that many)
 * @param joins the join on one device against all of them, per setup of its inputs
 */
public record MultiDeviceJoinResults(String backend, List<String> devices, boolean directPeerAccess, long copyBytes,
    List<PeerCopy> copies, long rowsPerSide, int matchesPerKey, List<JoinRun> joins) {
  /**
   * One peer-copy measurement.
   *
   * @param direction "0->1", "1->0" or "0<->1" (both at once)
   * @param millis each timed run (wall time with the streams synchronised)
   * @param gbPerSecond bytes moved (both directions counted) over the median time, in GB/s
   */
  public record PeerCopy(String direction, List<Double> millis, double gbPerSecond) {}

  /**
   * One setup of the join timed on one device and on all.
   *
   * @param setup where the inputs are: "home" (all on device 0, a task's partition, the output brought back there),
   *     "spread" (1/D of each side on each device, the output left where it is made) or "local" (partitioned by key
   *     range already, each device joining its own: no exchange, the bound the others approach)
   * @param oneDeviceMillis each timed run on device 0 alone (the same runs for both setups)
   * @param allDevicesMillis each timed run spread over the devices
   * @param speedUp median on one device over median on all
   * @param outputRows rows of the join's answer
   * @param matched whether both gave the same row count and checksum
   */
  public record JoinRun(String setup, List<Double> oneDeviceMillis, List<Double> allDevicesMillis, double speedUp,
      long outputRows, boolean matched) {}

  public void write(Path file) {
    Json.write(this, file);
  }

  public static MultiDeviceJoinResults read(Path file) {
    return Json.read(file, MultiDeviceJoinResults.class);
  }
}
