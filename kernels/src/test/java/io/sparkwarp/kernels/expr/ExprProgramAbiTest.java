package io.sparkwarp.kernels.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.batch.DeviceType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The constants of expr_program.cuh are the ordinals of the Java enums the host writes programs with. */
class ExprProgramAbiTest {
  private static final Path HEADER = Path.of("src/main/cuda/include/sparkwarp/expr_program.cuh");

  private static Map<String, Integer> constants() throws IOException {
    Map<String, Integer> values = new HashMap<>();
    Matcher m = Pattern.compile("constexpr int (\\w+) = (\\d+);").matcher(Files.readString(HEADER));
    while (m.find()) values.put(m.group(1), Integer.parseInt(m.group(2)));
    return values;
  }

  private static <E extends Enum<E>> void assertMatches(Map<String, Integer> constants, String prefix, E[] values,
      int offset) {
    for (E e : values) assertEquals(e.ordinal() + offset, constants.get(prefix + e.name()), prefix + e.name());
    long declared = constants.keySet().stream().filter(k -> k.startsWith(prefix)).count();
    assertEquals(values.length + (offset == 0 ? 0 : 1), declared, "constants named " + prefix + "*");
  }

  @Test
  void deviceConstantsAreTheJavaOrdinals() throws IOException {
    Map<String, Integer> c = constants();
    assertMatches(c, "OP_", Opcode.values(), 0);
    assertMatches(c, "KIND_", DeviceType.Kind.values(), 0);
    assertMatches(c, "CMP_", Comparison.values(), 0);
    assertMatches(c, "MODE_", EvalMode.values(), 0);
    assertMatches(c, "FIELD_", DateField.values(), 0);
    assertMatches(c, "ERR_", ExpressionErrorException.Kind.values(), 1);
    assertEquals(0, c.get("ERR_NONE"));
    assertEquals(ExprProgram.MAX_STACK_DEPTH, c.get("MAX_STACK_DEPTH"));
  }
}
