package io.sparkwarp.it;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every join type on a key of every type the GPU join takes, returning both sides' keys (null-extended ones
 * included). Keys repeat on both sides, so most probe rows match several build rows and some none; nulls on either
 * side match nothing. The operator (broadcast, shuffled hash, sort-merge) turns with the join type and the key type,
 * so every pair of join type, key type and operator is met: all three for every case would take minutes.
 */
class JoinTest extends GpuTestBase {
  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  static Stream<Arguments> kindsAndKeys() {
    JoinKind[] kinds = JoinKind.values();
    return IntStream.range(0, kinds.length).boxed().flatMap(kind -> IntStream.range(0, JoinTables.KEYS.length)
        .mapToObj(key -> Arguments.of(kinds[kind], kinds[kind].strategy(kind + key), JoinTables.KEYS[key])));
  }

  @ParameterizedTest(name = "{0} as {1} on {2}")
  @MethodSource("kindsAndKeys")
  void equiJoin(JoinKind kind, JoinStrategy strategy, String key) {
    strategy.check("SELECT " + strategy.hint(kind.buildSide()) + " " + kind.select("l.id, l." + key, "r.id, r." + key)
        + " FROM join_probe l " + kind.sql() + " join_build r ON l." + key + " = r." + key).matchesCpu();
  }
}
