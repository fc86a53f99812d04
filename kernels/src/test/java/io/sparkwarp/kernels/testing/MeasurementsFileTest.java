package io.sparkwarp.kernels.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file has the fields the benchmark report reads: source, device, date, and name/value/unit/limit each. */
class MeasurementsFileTest {
  @TempDir Path dir;

  @Test
  void writesTheReportsSchema() throws Exception {
    Path file = dir.resolve("transfers.json");
    new MeasurementsFile("TransferBenchmark", "a device").add("upload", 50.5, "GB/s", 55.0)
        .add("device copy", 4233, "GB/s", null).write(file);
    JsonNode json = new ObjectMapper().readTree(file.toFile());
    assertEquals("TransferBenchmark", json.get("source").asText());
    assertEquals("a device", json.get("device").asText());
    assertEquals(LocalDate.now().toString(), json.get("date").asText());
    JsonNode upload = json.get("measurements").get(0);
    List<String> fields = new ArrayList<>();
    upload.fieldNames().forEachRemaining(fields::add);
    assertEquals(List.of("name", "value", "unit", "limit"), fields);
    assertEquals(50.5, upload.get("value").asDouble());
    assertEquals(55.0, upload.get("limit").asDouble());
    assertTrue(json.get("measurements").get(1).get("limit").isNull(), "no limit is null");
  }
}
