#!/bin/sh
# README quick start, part 1: install what is missing, build, and run the
# main job: the decode sweep of Llama-3-70B on 16 TPU v5e chips, with its
# chart written to pareto.png.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build
meson compile -C build
build/src/infcalc --model llama3-70b --hw v5e --chips 16 --sweep batch --plot pareto.png
echo "chart: pareto.png" >&2
