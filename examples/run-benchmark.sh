#!/usr/bin/env bash
# Runs the end-to-end TPC-H benchmark (io.sparkwarp.examples.TpchBenchmark): every query with the plugin off and
# on in one session, one warm-up and the median of N timed runs per side, answers compared, a table with the
# geomean, and the results as JSON for examples/run-report.sh.
# Build first, at the repository root: mvn -B -ntp -DskipTests install
# Usage: examples/run-benchmark.sh [scale-factor=1] [data-dir=./tpch-data] [backend=auto|cuda|host]
#   [repetitions=3] [queries=all|Q1,Q11,...] [json-output]
# JAVA_OPTS adds JVM options (default -Xmx8g).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/java-env.sh"
run_example io.sparkwarp.examples.TpchBenchmark "$@"
