package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.report.MultiDeviceJoinResults;
import io.sparkwarp.examples.report.MultiDeviceJoinResults.PeerCopy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The multi-device benchmark on two simulated host devices, tiny: its table, its checks and its JSON. */
class MultiDeviceJoinBenchmarkTest {
  @TempDir Path dir;

  @Test
  void measuresCopiesAndBothJoinsAndWritesResultsThatReadBack() {
    Path json = dir.resolve("out/multi.json");
    MultiDeviceJoinBenchmark.Args args = MultiDeviceJoinBenchmark.Args.parse("20000", "2", "2", "host",
        json.toString(), "1048576");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    MultiDeviceJoinBenchmark.run(args, new PrintStream(out, true, StandardCharsets.UTF_8)).write(json);
    String table = out.toString(StandardCharsets.UTF_8);

    MultiDeviceJoinResults results = MultiDeviceJoinResults.read(json);
    assertTrue(table.contains("| inputs on device 0 |"), table);
    assertEquals(List.of("host", "host"), results.devices());
    assertFalse(results.directPeerAccess());
    assertEquals(List.of("0->1", "1->0", "0<->1"), results.copies().stream().map(PeerCopy::direction).toList());
    for (PeerCopy copy : results.copies()) {
      assertEquals(5, copy.millis().size(), copy.direction());
      assertTrue(copy.gbPerSecond() > 0, copy.direction());
    }
    MultiDeviceJoinResults.JoinRun home = results.joins().get(0);
    assertEquals("home", home.setup());
    assertEquals(40_000, home.outputRows(), "each of 20000 stream rows matches 2 build rows");
    assertTrue(home.matched(), table);
    assertEquals(3, home.oneDeviceMillis().size());
    assertEquals(3, home.allDevicesMillis().size());
    MultiDeviceJoinResults.JoinRun spread = results.joins().get(1);
    assertEquals("spread", spread.setup());
    assertEquals(40_000, spread.outputRows());
    assertTrue(spread.matched(), table);
    assertEquals(home.oneDeviceMillis(), spread.oneDeviceMillis(), "one baseline for both setups");
    assertTrue(table.contains("| inputs spread over the devices |"), table);
    MultiDeviceJoinResults.JoinRun local = results.joins().get(2);
    assertEquals("local", local.setup());
    assertEquals(40_000, local.outputRows());
    assertTrue(local.matched(), "the rows partitioned by key give one device's answer: " + table);
    assertEquals(3, local.allDevicesMillis().size());
  }

  @Test
  void refusesOneDevice() {
    assertThrows(IllegalArgumentException.class, () -> MultiDeviceJoinBenchmark.Args.parse("10", "1", "1", "host",
        "x.json"));
  }
}
