#!/bin/sh
# Builds the council-ai wheel of the source tree in the current folder into $1 (the
# Containerfile's build stage runs it; tests/deploy/test_wheel.py too). Any further
# arguments go to `pip wheel`, e.g. --no-build-isolation to build with the build
# requirements already installed (offline).
# Needs a C compiler; the wheel holds the compiled Cython core and the generated stubs.
set -eu
out=${1:?usage: deploy/build-wheel.sh OUT_DIR [pip wheel arguments]}
shift
python=${PYTHON:-python3}
"$python" -m pip wheel --no-deps --wheel-dir "$out" "$@" .
ls "$out"/council_ai-*.whl
