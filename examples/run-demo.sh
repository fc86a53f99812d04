#!/usr/bin/env bash
# Runs the TPC-H demo (io.sparkwarp.examples.TpchDemo) in a plain JVM with the plugin jar on the classpath.
# Build first, at the repository root: mvn -B -ntp -DskipTests install
# Usage: examples/run-demo.sh [scale-factor=0.1] [data-dir=./tpch-data] [backend=auto|cuda|host] [repetitions=3]
# JAVA_OPTS adds JVM options (default -Xmx8g).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=0.1.0-SNAPSHOT
plugin=$root/spark-plugin/target/sparkwarp-$version.jar
examples=$root/examples/target/sparkwarp-examples-$version.jar
for jar in "$plugin" "$examples"; do
  if [[ ! -f $jar ]]; then
    echo "run-demo.sh: $jar is missing; build first at $root: mvn -B -ntp -DskipTests install" >&2
    exit 2
  fi
done

# Spark, Scala and the TPC-H generator from the local Maven repository (computed once per pom change; every
# scope but the test libraries: Spark is "provided", and Maven's compile scope misses some of its netty modules);
# sparkwarp and JCuda come from the plugin jar alone, as they would in a Spark installation
classpath=$root/examples/target/demo-classpath.txt
opens=$root/examples/target/demo-jvm-opens.txt
if [[ ! -s $classpath || ! -s $opens || $root/examples/pom.xml -nt $classpath || $root/pom.xml -nt $opens ]]; then
  mvn -B -q -ntp -f "$root/pom.xml" -pl examples dependency:build-classpath -Dmdep.outputFile="$classpath" \
    -DexcludeGroupIds=io.sparkwarp,org.jcuda,org.junit.jupiter,org.junit.platform,org.opentest4j,org.apiguardian
  # the --add-opens list Spark needs on Java 17: one list, kept in the root pom for the tests too
  mvn -B -q -ntp -f "$root/pom.xml" -N help:evaluate -Dexpression=spark.test.jvm.opens -Doutput="$opens"
fi

# shellcheck disable=SC2046,SC2086 # JAVA_OPTS and the opens list are whitespace-separated option lists
exec java ${JAVA_OPTS:--Xmx8g} $(cat "$opens") -cp "$plugin:$examples:$(cat "$classpath")" \
  io.sparkwarp.examples.TpchDemo "$@"
