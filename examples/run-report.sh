#!/usr/bin/env bash
# Turns benchmark JSON (TpchBenchmark results, microbenchmark measurements) into OUT_DIR/README.md with PNG charts
# (io.sparkwarp.examples.report.BenchmarkReport).
# Build first, at the repository root: mvn -B -ntp -DskipTests install
# Usage: examples/run-report.sh IN.json... OUT_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/java-env.sh"
JAVA_OPTS=${JAVA_OPTS:--Xmx1g} run_example io.sparkwarp.examples.report.BenchmarkReport "$@"
