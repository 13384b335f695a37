#!/bin/sh
# The GPU self-check in one call, for a machine with an NVIDIA GPU:
# builds infcalc with CUDA in a fresh folder, runs the CUDA test suite (the
# CUDA step against the CPU kernel), `infcalc bench --device cuda` and
# `infcalc validate --device cuda`, and leaves in OUTDIR six files (the
# device tool returns at most 8 from $OUT):
#   summary.txt         tools, timings and exit statuses (printed last too)
#   device-check.log    every stage's output in order: nvidia-smi, build,
#                       test-cuda (with meson's testlog), bench, validate
#   bench-NAME.yaml, validate-NAME.csv, validate-NAME-batch.png,
#   validate-NAME-context.png
# Sized for an H200 within 7 minutes: build ~1-2 min on 16 cores, tests
# ~20 s, bench ~1 min, validate ~1-2 min. Each stage has its own time limit,
# and all of them together stay inside DEADLINE_S (default 540 s) so that
# the script ends, with its summary written, before a 10-minute command
# limit. Exits 0 only when every stage passed.
#
#   sh scripts/device-check.sh OUTDIR [NAME]     (NAME: file stem, default h200)
#
# Needs meson, ninja (on PATH, or as python3 modules), nvcc (on PATH or in
# /usr/local/cuda/bin), a C compiler, and the -dev packages of GSL,
# libyaml, cairo and Check. Where the machine lacks the libraries, put
# their .deb files (made here by scripts/device-deps.sh) in DEVDEPS (default
# .devdeps/ in the repository, named in the device call's carry): they are
# unpacked under /tmp/ic-sysroot, never into /, and found through
# PKG_CONFIG_SYSROOT_DIR / PKG_CONFIG_LIBDIR and LD_LIBRARY_PATH. Setting
# DEVDEPS uses them even where pkg-config finds system copies.
set -eu
[ $# -ge 1 ] || { echo "usage: sh scripts/device-check.sh OUTDIR [NAME]" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$1
name=${2:-h200}
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${BUILD:-/tmp/ic-build-cuda}
tmp=/tmp/ic-devcheck
rm -rf "$tmp"
mkdir -p "$tmp/bin"
sum="$out/summary.txt"
log="$out/device-check.log"
: > "$sum"
: > "$log"
t_start=$(date +%s)
deadline=$((t_start + ${DEADLINE_S:-540}))
failed=0
note() { echo "$*" | tee -a "$sum"; }
# stage NAME LIMIT_S CMD...: runs CMD under a time limit (cut to what is left
# before the deadline), appends its output to the log under a header, keeps
# a copy in $tmp/NAME.log, records the status; returns CMD's status
stage() {
    st_name=$1 st_lim=$2
    shift 2
    st_t0=$(date +%s)
    st_left=$((deadline - st_t0))
    [ "$st_left" -lt "$st_lim" ] && st_lim=$st_left
    if [ "$st_lim" -lt 10 ]; then
        note "$(printf '%-10s skipped: %ds left before the deadline' "$st_name" "$st_left")"
        failed=1
        return 124
    fi
    printf '\n======== %s (limit %ds): %s\n' "$st_name" "$st_lim" "$*" >> "$log"
    st_off=$(wc -c < "$log")
    set +e
    timeout -k 10 "$st_lim" "$@" >> "$log" 2>&1 < /dev/null
    st_rc=$?
    set -e
    tail -c +$((st_off + 1)) "$log" > "$tmp/$st_name.log"
    [ "$st_rc" -eq 0 ] || failed=1
    note "$(printf '%-10s exit %3d  %4ds  (limit %ds)%s' "$st_name" "$st_rc" \
        $(($(date +%s) - st_t0)) "$st_lim" "$([ "$st_rc" -eq 124 ] && echo '  TIMED OUT')")"
    return "$st_rc"
}

note "device-check: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n), $(nproc 2> /dev/null || echo '?') CPUs"
printf '======== nvidia-smi\n' >> "$log"
if (nvidia-smi && nvidia-smi -q -d CLOCK,POWER,PERFORMANCE) >> "$log" 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem \
        --format=csv,noheader 2> /dev/null | sed 's/^/gpu: /' | tee -a "$sum" || true
else
    note "nvidia-smi failed (see device-check.log)"
fi

# tools: nvcc from /usr/local/cuda when not on PATH; meson and ninja from
# python3's modules when only those exist (pip's meson and ninja)
command -v nvcc > /dev/null 2>&1 || [ ! -x /usr/local/cuda/bin/nvcc ] ||
    export PATH="$PATH:/usr/local/cuda/bin"
if ! command -v meson > /dev/null 2>&1 && python3 -c 'import mesonbuild' 2> /dev/null; then
    printf '#!/bin/sh\nexec python3 -m mesonbuild.mesonmain "$@"\n' > "$tmp/bin/meson"
    chmod +x "$tmp/bin/meson"
    export PATH="$PATH:$tmp/bin"
fi
if ! command -v ninja > /dev/null 2>&1 && python3 -c 'import ninja' 2> /dev/null; then
    printf '#!/bin/sh\nexec python3 -m ninja "$@"\n' > "$tmp/bin/ninja"
    chmod +x "$tmp/bin/ninja"
    export PATH="$PATH:$tmp/bin"
fi

# libraries the build needs, from the system or from carried .debs
deps="gsl yaml-0.1 cairo check"
if ! pkg-config --exists $deps 2> /dev/null || [ -n "${DEVDEPS:-}" ]; then
    devdeps=${DEVDEPS:-.devdeps}
    if ls "$devdeps"/*.deb > /dev/null 2>&1; then
        root=/tmp/ic-sysroot
        mkdir -p "$root"
        for f in "$devdeps"/*.deb; do dpkg -x "$f" "$root"; done
        multi=$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)
        [ -n "$multi" ] || multi=x86_64-linux-gnu
        # infcalc links these dynamically: the private requirements (glib for
        # cairo, say) only matter to static links, and are not carried
        sed -i '/^Requires.private/d' "$root"/usr/lib/"$multi"/pkgconfig/*.pc \
            "$root"/usr/share/pkgconfig/*.pc 2> /dev/null || true
        export PKG_CONFIG_SYSROOT_DIR="$root"
        export PKG_CONFIG_LIBDIR="$root/usr/lib/$multi/pkgconfig:$root/usr/share/pkgconfig"
        export LD_LIBRARY_PATH="$root/usr/lib/$multi${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export LIBRARY_PATH="$root/usr/lib/$multi${LIBRARY_PATH:+:$LIBRARY_PATH}"
        if ! command -v pkg-config > /dev/null 2>&1; then
            # the carried pkgconf, under the name meson and this script call
            ln -sf "$root/usr/bin/pkgconf" "$tmp/bin/pkg-config"
            export PATH="$PATH:$tmp/bin"
            export PKG_CONFIG="$tmp/bin/pkg-config"
        fi
        note "libraries: unpacked $(ls "$devdeps"/*.deb | wc -l) packages from $devdeps into $root"
    fi
    for d in $deps; do
        pkg-config --exists "$d" 2> /dev/null || note "missing library: $d (pkg-config)"
    done
    pkg-config --exists $deps || { note "device-check: cannot build without them"; exit 3; }
fi
for p in meson ninja nvcc cc pkg-config; do
    command -v "$p" > /dev/null 2>&1 || { note "device-check: $p not found"; exit 3; }
done
note "tools: meson $(meson --version 2>&1), ninja $(ninja --version 2>&1)," \
    "$(nvcc --version 2>&1 | grep -o 'release [0-9.]*' || echo 'nvcc ?')," \
    "$(cc --version 2>&1 | head -n 1)"

jobs=${JOBS:-$(nproc 2> /dev/null || echo 8)}
rm -rf "$build"
if ! stage build 300 sh -c "meson setup '$build' -Dcuda=enabled -Dnative=true \
    -Dbuildtype=release && meson compile -C '$build' -j $jobs"; then
    echo "---- the end of the build's output:"
    tail -n 60 "$tmp/build.log"
    note "device-check: the build failed; total $(($(date +%s) - t_start)) s"
    exit 1
fi
ic="$build/src/infcalc"
export INFCALC_DB="$PWD"

# the CUDA kernel against the CPU kernel (a skip, exit 77, would mean no device)
stage test-cuda 150 meson test -C "$build" --suite cuda --print-errorlogs ||
    note "test-cuda: FAILED (see device-check.log)"
grep -q 'SKIP' "$tmp/test-cuda.log" 2> /dev/null &&
    { note "test-cuda: a test SKIPPED (no usable device?)"; failed=1; }
{ printf '\n======== meson testlog.txt\n'; cat "$build/meson-logs/testlog.txt"; } >> "$log" \
    2> /dev/null || true

if ! stage bench 180 "$ic" bench --device cuda --out "$out/bench-$name.yaml" --name "this-$name"
then
    cat "$tmp/bench.log" 2> /dev/null || true
    note "device-check: bench failed, so nothing to validate against; total" \
        "$(($(date +%s) - t_start)) s"
    exit 1
fi
cat "$tmp/bench.log"
stage validate 300 "$ic" validate --device cuda --hw "$out/bench-$name.yaml" \
    --csv "$out/validate-$name.csv" --plot-prefix "$out/validate-$name" ||
    note "validate failed (see device-check.log)"
# the report (stdout) is the part after the per-point progress lines
grep -v '^validate \[\|^validate: making' "$tmp/validate.log" 2> /dev/null || true
note "device-check: total $(($(date +%s) - t_start)) s, $([ "$failed" -eq 0 ] &&
    echo 'every stage passed' || echo 'a stage FAILED'); files in $out:"
ls -l "$out" | tee -a "$sum"
exit "$failed"
