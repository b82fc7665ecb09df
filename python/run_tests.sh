#!/usr/bin/env bash
# Tests of the Python package against a built libclnorm.so:
#   python/run_tests.sh BUILD_DIR     (BUILD_DIR holds libclnorm.so, e.g. build)
# Creates a virtual environment in BUILD_DIR/pyenv, installs pyopencl, numpy, pytest and this
# package (pip install ./python) into it, and runs python/tests with CLNORM_LIBRARY pointing at
# BUILD_DIR/libclnorm.so. Needs python3 with venv (Debian: apt-get install python3 python3-venv),
# PyPI, and an OpenCL ICD (PoCL: pocl-opencl-icd). Exit status: pytest's, and nonzero when no test
# ran or passed (pytest's 5, "no tests collected", counts as a failure).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "$1" && pwd)
lib="$build/libclnorm.so"
if [ ! -e "$lib" ]; then
  echo "run_tests.sh: $lib not found: build the library first (cmake --build $1 --target clnorm)" >&2
  exit 1
fi

venv="$build/pyenv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv"; then
    echo "run_tests.sh: 'python3 -m venv' failed; on Debian/Ubuntu: apt-get install python3-venv" >&2
    exit 1
  fi
fi
py="$venv/bin/python"
pip=("$py" -m pip --disable-pip-version-check -q)
"${pip[@]}" install pyopencl numpy pytest
"${pip[@]}" install --force-reinstall --no-deps "$here"

export CLNORM_LIBRARY="$lib"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$build/pocl-cache}"
"$py" -c 'import sys, numpy, pyopencl as cl, clnorm
print("python", sys.version.split()[0], "| numpy", numpy.__version__, "| pyopencl", cl.VERSION_TEXT,
      "| clnorm", clnorm.__version__, "library", clnorm.library_version(), "from", clnorm.library_path())
print("OpenCL platforms:", [p.name for p in cl.get_platforms()], "| clnorm device:", clnorm.select_device().name)'

# The installed package is tested (CLNORM_TEST_INSTALLED=1; see tests/conftest.py), from the build
# directory so that nothing else is importable as clnorm.
cd "$build"
log="$build/pytest.log"
set +e
CLNORM_TEST_INSTALLED=1 "$py" -m pytest "$here/tests" -q -rs -p no:cacheprovider 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -eq 5 ]; then
  echo "run_tests.sh: pytest collected no tests" >&2
  exit 1
fi
if [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
if ! tail -n 1 "$log" | grep -Eq '[1-9][0-9]* passed'; then
  echo "run_tests.sh: no test passed" >&2
  exit 1
fi
