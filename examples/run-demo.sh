#!/usr/bin/env bash
# Runs the TPC-H demo (io.sparkwarp.examples.TpchDemo) in a plain JVM with the plugin jar on the classpath.
# Build first, at the repository root: mvn -B -ntp -DskipTests install
# Usage: examples/run-demo.sh [scale-factor=0.1] [data-dir=./tpch-data] [backend=auto|cuda|host] [repetitions=3]
#   [queries=all|Q13,Q20,...]
# JAVA_OPTS adds JVM options (default -Xmx8g).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/java-env.sh"
run_example io.sparkwarp.examples.TpchDemo "$@"
