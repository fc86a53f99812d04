package io.sparkwarp.examples.notebook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A Jupyter notebook file (nbformat 4) as the checks read it: its JSON and its cells' sources. */
public record NotebookFile(JsonNode json) {
  public static NotebookFile read(Path file) {
    try {
      return new NotebookFile(new ObjectMapper().readTree(file.toFile()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read notebook " + file, e);
    }
  }

  /** The cells, in order. */
  public List<JsonNode> cells() {
    List<JsonNode> cells = new ArrayList<>();
    json.get("cells").forEach(cells::add);
    return cells;
  }

  /** The code cells, in order. */
  public List<JsonNode> codeCells() {
    return cells().stream().filter(c -> c.get("cell_type").asText().equals("code")).toList();
  }

  /** A cell's source. */
  public static String source(JsonNode cell) {
    return multiline(cell.get("source"));
  }

  /** nbformat's multiline text (sources, outputs): a list of lines or one string. */
  public static String multiline(JsonNode text) {
    if (!text.isArray()) return text.asText();
    StringBuilder s = new StringBuilder();
    text.forEach(line -> s.append(line.asText()));
    return s.toString();
  }
}
