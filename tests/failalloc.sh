#!/bin/sh
# Allocation failure, allocation by allocation, over five commands:
#   list hw                                   every hardware entry loaded
#   list models                               every model entry loaded
#   --model llama3-70b --hw v5e --chips 16    one decode
#   --model llama3-8b --hw h100 --sweep batch --plot OUT.png
#                                             a sweep with a chart
#   prefill --model llama3-70b --hw h100 --chips 8
#                                             a serving command
# infcalc-failalloc is the command line linked with
# tests/failalloc/ic_failalloc.c, which counts allocations (infcalc's own
# malloc/calloc/realloc/strdup/strndup, the fopen/fdopen/open_memstream/
# opendir calls of its code, and libyaml's), fails the Nth, and with
# IC_FAIL_ALLOC_EACH=K set runs the command once to count and then once per
# N, each in a forked child, checking each: the Nth allocation failed; exit
# status 1 or 2, not 0, not a signal; no sanitizer report (run under
# `meson test --setup asan`, leaks included); an error line on stderr saying
# that memory ran out; no chart and no temporary file left. See that file
# for what is counted and why.
#
# Which N: every allocation of infcalc's own code and every stream or folder
# it opens (~35-55 per command), the first allocation of every call into
# libyaml, and every Kth of libyaml's others. libyaml makes ~99% of the
# ~4,500-8,900 allocations of each command (every token, event and scalar of
# every file it reads), and every one of its failures inside one call reaches
# infcalc the same way (that call returns 0). K is IC_FAILALLOC_STRIDE:
# 128 by default (~750 runs, ~15 s here); IC_FAILALLOC_STRIDE=1 runs every N
# (~33,000 runs, all passing on 2026-12-01, 960 s).
# usage: failalloc.sh INFCALC-FAILALLOC OUTDIR
set -u
bin=$1
out=$2
# Under ASan each run's exit costs a leak check (~0.3 s here): the CI's
# budget takes every own allocation, every 16th first allocation of a libyaml
# call (IC_FAILALLOC_FIRST_STRIDE) and every 4096th of its others;
# IC_FAILALLOC_STRIDE=1 IC_FAILALLOC_FIRST_STRIDE=1 takes them all
if [ -n "${ASAN_OPTIONS:-}" ]; then
    stride=${IC_FAILALLOC_STRIDE:-4096}
    first=${IC_FAILALLOC_FIRST_STRIDE:-16}
else
    stride=${IC_FAILALLOC_STRIDE:-128}
    first=${IC_FAILALLOC_FIRST_STRIDE:-1}
fi
rm -rf "$out"
mkdir -p "$out/chart" || exit 1
bad=0
start=$(date +%s)

scenario() {
    name=$1
    shift
    printf '%s: ' "$name"
    if ! IC_FAIL_ALLOC_EACH=$stride IC_FAIL_ALLOC_FIRST_EACH=$first IC_FAIL_ALLOC_OUT=$out \
        IC_FAIL_ALLOC_DIR=$out/chart \
        "$bin" "$@" >"$out/log"; then
        bad=$((bad + 1))
    fi
    tail -n 1 "$out/log"
    grep -v '^[0-9]* allocations' "$out/log" | head -n 200
}

scenario "list hw" list hw
scenario "list models" list models
scenario "decode" --model llama3-70b --hw v5e --chips 16
scenario "sweep with a chart" --model llama3-8b --hw h100 --sweep batch --plot "$out/chart/sweep.png"
scenario "prefill" prefill --model llama3-70b --hw h100 --chips 8
echo "$bad of 5 commands failed a check; $(($(date +%s) - start)) s"
[ "$bad" -eq 0 ]
