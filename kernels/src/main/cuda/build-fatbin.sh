#!/usr/bin/env bash
# Compiles every CUDA source of sparkwarp into one fatbin: SASS for sm_80 and sm_90, PTX for compute_90.
# Called by Maven (kernels/pom.xml) in generate-resources: build-fatbin.sh OUTPUT SKIP [REPORT]
# REPORT receives nvcc's register, shared-memory and spill report for every kernel.
set -euo pipefail
out=$1 skip=${2:-false} report=${3:-$1.ptxas.txt}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $skip == true ]]; then
  echo "sparkwarp: -Dsparkwarp.skipKernels=true: building without CUDA kernels; the cuda backend of this jar will refuse to start"
  rm -f "$out"
  exit 0
fi
nvcc=${NVCC:-$(command -v nvcc || true)}
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -z $nvcc ]]; then
  cat >&2 <<'MSG'
sparkwarp: nvcc was not found. The build compiles the CUDA kernels into the jar and needs the CUDA Toolkit 12 or 13
(nvcc on the PATH, or NVCC=/path/to/nvcc). Install it (for example the 'cuda-toolkit' package from NVIDIA's
repository), or build without kernels with -Dsparkwarp.skipKernels=true (only the host backend then works).
MSG
  exit 1
fi
# skip the compile when the fatbin is newer than every source
if [[ -f $out ]] && [[ -z $(find "$src" -newer "$out" \( -name '*.cu' -o -name '*.cuh' -o -name '*.sh' \) -print -quit) ]]; then
  echo "sparkwarp: fatbin is up to date"
  exit 0
fi
mkdir -p "$(dirname "$out")"
echo "sparkwarp: $nvcc -fatbin $src/sparkwarp.cu -> $out"
"$nvcc" -fatbin -O3 -std=c++17 -lineinfo -Xptxas -v \
  -gencode arch=compute_80,code=sm_80 \
  -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_90,code=compute_90 \
  -I "$src/include" -o "$out.tmp" "$src/sparkwarp.cu" 2> "$report" || { cat "$report" >&2; exit 1; }
mv "$out.tmp" "$out"
grep -E 'error|warning' "$report" >&2 || true
