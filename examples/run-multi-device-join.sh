#!/usr/bin/env bash
# Runs the multi-device join benchmark (io.sparkwarp.examples.MultiDeviceJoinBenchmark): peer-copy GB/s between
# devices 0 and 1, and a join of N x N rows on one device against all of them, answers checked, JSON out.
# Build first, at the repository root: mvn -B -ntp -DskipTests install
# Usage: examples/run-multi-device-join.sh ROWS_PER_SIDE MATCHES_PER_KEY DEVICES cuda|host JSON_OUTPUT
#   [PEER_COPY_BYTES=1073741824]
# JAVA_OPTS adds JVM options (default -Xmx8g).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/java-env.sh"
run_example io.sparkwarp.examples.MultiDeviceJoinBenchmark "$@"
