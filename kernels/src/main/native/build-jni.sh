#!/usr/bin/env bash
# Builds sparkwarp's small JNI library (driver calls JCuda does not bind) with the C compiler.
# Called by Maven (kernels/pom.xml) in generate-resources: build-jni.sh OUTPUT SKIP JAVA_HOME
set -euo pipefail
out=$1 skip=${2:-false} jhome=${3:-${JAVA_HOME:-}}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $skip == true ]]; then rm -f "$out"; exit 0; fi
cc=${CC:-$(command -v gcc || command -v cc || true)}
if [[ -z $cc ]]; then
  echo "sparkwarp: no C compiler (gcc) found; install gcc, or build with -Dsparkwarp.skipKernels=true" >&2
  exit 1
fi
if [[ ! -f $jhome/include/jni.h ]]; then
  echo "sparkwarp: jni.h not found under $jhome/include: build with a JDK (not a JRE)" >&2
  exit 1
fi
if [[ -f $out && ! $src/default_pool.c -nt $out && ! $0 -nt $out ]]; then exit 0; fi
mkdir -p "$(dirname "$out")"
"$cc" -O2 -shared -fPIC -Wall -Werror -I"$jhome/include" -I"$jhome/include/linux" \
  -o "$out" "$src/default_pool.c" -ldl
