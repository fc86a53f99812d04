package io.sparkwarp.kernels.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A microbenchmark's figures as JSON in the schema the benchmark report reads (examples'
 * {@code report.Measurements}): the source, the device and the date, then per figure its name, value, unit and,
 * where one applies, the physical limit in that unit, so the report can chart how close each comes.
 */
public final class MeasurementsFile {
  private final String source;
  private final String device;
  private final List<Map<String, Object>> measurements = new ArrayList<>();

  public MeasurementsFile(String source, String device) {
    this.source = source;
    this.device = device;
  }

  /** Adds a figure; {@code limit} is null where no physical limit applies. */
  public MeasurementsFile add(String name, double value, String unit, Double limit) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("value", value);
    m.put("unit", unit);
    m.put("limit", limit);
    measurements.add(m);
    return this;
  }

  public void write(Path file) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("source", source);
    json.put("device", device);
    json.put("date", LocalDate.now().toString());
    json.put("measurements", measurements);
    try {
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
