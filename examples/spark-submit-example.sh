#!/usr/bin/env bash
# Runs io.sparkwarp.examples.SubmitExample through spark-submit: the plugin jar comes with --jars and the plugin
# with one --conf; the job jar carries the TPC-H generator, which makes the data when DATA_DIR has none.
# Needs SPARK_HOME (Spark 4.1, Scala 2.13) and the build, at the repository root: mvn -B -ntp -DskipTests install
# Usage: examples/spark-submit-example.sh DATA_DIR [backend=auto|cuda|host] [scale-factor=0.1]
# MASTER picks the master (default local[*]).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=0.1.0-SNAPSHOT
: "${SPARK_HOME:?set SPARK_HOME to a Spark 4.1 installation}"
data=${1:?usage: spark-submit-example.sh DATA_DIR [backend=auto|cuda|host] [scale-factor=0.1]}

exec "$SPARK_HOME/bin/spark-submit" \
  --master "${MASTER:-local[*]}" \
  --class io.sparkwarp.examples.SubmitExample \
  --jars "$root/spark-plugin/target/sparkwarp-$version.jar" \
  --conf spark.plugins=io.sparkwarp.WarpPlugin \
  --conf spark.warp.backend="${2:-auto}" \
  --conf spark.warp.explain=NOT_ON_GPU \
  "$root/examples/target/sparkwarp-examples-$version-job.jar" "$data" "${3:-0.1}"
