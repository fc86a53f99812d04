package io.sparkwarp.it;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The GPU merge join ({@code spark.warp.join.algorithm=mergePath}) for every join type on a key of every type it
 * takes, on two keys at once with a null-safe one, and in output chunks of a few rows, against Spark. Keys repeat on
 * both sides, nulls match nothing (except under {@code <=>}), and some keys match on one side only.
 */
class MergePathJoinTest extends GpuTestBase {
  private static final JoinStrategy MERGE_PATH = JoinStrategy.MERGE_PATH;

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  static Stream<Arguments> kindsAndKeys() {
    return Arrays.stream(JoinKind.values()).flatMap(kind -> Arrays.stream(JoinTables.KEYS)
        .map(key -> Arguments.of(kind, key)));
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("kindsAndKeys")
  void everyKeyType(JoinKind kind, String key) {
    MERGE_PATH.check("SELECT " + MERGE_PATH.hint(kind.buildSide()) + " " + kind.select("l.id, l." + key,
        "r.id, r." + key) + " FROM join_probe l " + kind.sql() + " join_build r ON l." + key + " = r." + key)
        .matchesCpu();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(JoinKind.class)
  void twoKeysOneNullSafeInSmallChunks(JoinKind kind) {
    MERGE_PATH.check("SELECT " + MERGE_PATH.hint(kind.buildSide()) + " " + kind.select("l.id, l.k_str, l.k_int",
        "r.id, r.k_str, r.k_int") + " FROM join_probe l " + kind.sql() + " join_build r ON l.k_str <=> r.k_str "
        + "AND l.k_int = r.k_int").conf("spark.warp.batch.targetRows", "7").matchesCpu();
  }
}
