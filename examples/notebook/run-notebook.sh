#!/usr/bin/env bash
# Executes the tour notebook (sparkwarp-tour.ipynb) headless with Jupyter and a small Java kernel, and writes the
# executed copy into OUT_DIR. Works on a machine without a GPU: the notebook then runs the plugin on its host
# backend. Installs what it needs when missing (Debian's jupyter-nbconvert and python3-ipykernel, through apt-get
# as root or with sudo); the Java kernel (io.sparkwarp.examples.notebook.JShellKernel, on jjava-jupyter from Maven
# Central) comes with the examples' build.
# Build first, at the repository root: mvn -B -ntp -DskipTests install
# Usage: examples/notebook/run-notebook.sh OUT_DIR (exit 3: Jupyter is missing and cannot be installed here)
# SPARKWARP_BACKEND (auto|cuda|host, default auto) and SPARKWARP_DATA (default OUT_DIR/tpch-data) reach the
# notebook; JAVA_OPTS sets the kernel's JVM options (default -Xmx4g).
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
mkdir -p "$1"
out=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Jupyter from Debian's packages (PyPI is not needed): nbconvert with nbclient runs the notebook. Exit 3 says that
# it is missing and cannot be installed here, as distinct from a notebook that failed.
have_jupyter() {
  /usr/bin/python3 -c 'import nbclient, nbconvert' 2>/dev/null && command -v jupyter-nbconvert >/dev/null
}
if ! have_jupyter; then
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo -n); fi
  echo "run-notebook.sh: installing jupyter-nbconvert and python3-ipykernel" >&2
  if ! command -v apt-get >/dev/null || ! "${sudo[@]}" apt-get update -qq \
      || ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        jupyter-nbconvert python3-ipykernel >/dev/null \
      || ! have_jupyter; then
    echo "run-notebook.sh: cannot install Jupyter here (needs Debian's apt-get as root or with sudo);" \
      "install jupyter-nbconvert and python3-ipykernel" >&2
    exit 3
  fi
fi

# the kernel spec: a JVM with Spark's --add-opens and the examples' classpath (Spark, the plugin jar, XChart,
# jjava-jupyter), kept under examples/target so nothing is installed into the user's Jupyter
source "$here/../java-env.sh"
kernels=$root/examples/target/jupyter
mkdir -p "$kernels/kernels/sparkwarp-java"
# shellcheck disable=SC2086 # JAVA_OPTS and the opens list are whitespace-separated option lists
/usr/bin/python3 - "$kernels/kernels/sparkwarp-java/kernel.json" "$example_classpath" ${JAVA_OPTS:--Xmx4g} \
  $example_jvm_opens <<'PY'
import json, sys
path, classpath, jvm_options = sys.argv[1], sys.argv[2], sys.argv[3:]
spec = {
    "argv": ["java", *jvm_options, "-cp", classpath,
             "io.sparkwarp.examples.notebook.JShellKernel", "{connection_file}"],
    "display_name": "Java (sparkwarp)",
    "language": "java",
    "interrupt_mode": "message",
}
with open(path, "w") as f:
    json.dump(spec, f, indent=1)
PY

export JUPYTER_PATH=$kernels${JUPYTER_PATH:+:$JUPYTER_PATH}
export SPARKWARP_DATA=${SPARKWARP_DATA:-$out/tpch-data}
# --allow-errors: a failing cell still leaves the executed copy to look at; the check below fails the run
jupyter-nbconvert --to notebook --execute --allow-errors --ExecutePreprocessor.timeout=1200 --output-dir "$out" \
  "$here/sparkwarp-tour.ipynb"

# what "ran" means: every code cell has output, none an error, and a chart is embedded
/usr/bin/python3 - "$out/sparkwarp-tour.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
code = [c for c in nb["cells"] if c["cell_type"] == "code"]
silent = [i for i, c in enumerate(code) if not c["outputs"]]
errors = [i for i, c in enumerate(code) if any(o["output_type"] == "error" for o in c["outputs"])]
charts = sum(1 for c in code for o in c["outputs"] if "image/png" in o.get("data", {}))
print(f"{sys.argv[1]}: {len(code)} code cells, {len(silent)} without output, {len(errors)} with errors, "
      f"{charts} charts")
sys.exit(1 if silent or errors or not charts else 0)
PY
