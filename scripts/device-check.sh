#!/bin/sh
# The GPU self-check in one call (issue 5), for a machine with an NVIDIA GPU:
# builds infcalc with CUDA in a fresh folder, runs the CUDA test suite (the
# CUDA step against the CPU kernel), `infcalc bench --device cuda` and
# `infcalc validate --device cuda`, and leaves in OUTDIR:
#   nvidia-smi.txt, build.log, test-cuda.log, bench-h200.yaml, bench.log,
#   validate-h200.csv, validate-h200-batch.png, validate-h200-context.png,
#   validate.log, summary.txt (timings and exit statuses, printed last too)
# Sized for an H200 within 7 minutes: build ~1-2 min on 16 cores, tests
# ~20 s, bench ~1 min, validate ~1-2 min; each stage has its own time limit.
#
#   sh scripts/device-check.sh OUTDIR [NAME]     (NAME: file stem, default h200)
#
# Needs meson, ninja, nvcc and the -dev packages of GSL, libyaml, cairo and
# Check. Where the machine lacks the libraries, put their .deb files (made
# here by scripts/device-deps.sh) in DEVDEPS (default .devdeps/ in the
# repository): they are unpacked under /tmp/ic-sysroot, never into /, and
# found through PKG_CONFIG_SYSROOT_DIR / PKG_CONFIG_LIBDIR and
# LD_LIBRARY_PATH. Setting DEVDEPS uses them even where pkg-config finds
# system copies.
set -eu
[ $# -ge 1 ] || { echo "usage: sh scripts/device-check.sh OUTDIR [NAME]" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$1
name=${2:-h200}
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${BUILD:-/tmp/ic-build-cuda}
sum="$out/summary.txt"
: > "$sum"
t_start=$(date +%s)
note() { echo "$*" | tee -a "$sum"; }
stage() { # stage NAME LIMIT_S LOG CMD...: runs CMD under a time limit, logs, records status
    st_name=$1 st_lim=$2 st_log=$3
    shift 3
    st_t0=$(date +%s)
    set +e
    timeout "$st_lim" "$@" > "$st_log" 2>&1
    st_rc=$?
    set -e
    note "$(printf '%-10s exit %3d  %4ds  (limit %ds)  log %s' "$st_name" "$st_rc" \
        $(($(date +%s) - st_t0)) "$st_lim" "$(basename "$st_log")")"
    return "$st_rc"
}

note "device-check: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
(nvidia-smi; nvidia-smi -q -d CLOCK,POWER,PERFORMANCE) > "$out/nvidia-smi.txt" 2>&1 ||
    note "nvidia-smi failed (see nvidia-smi.txt)"
head -n 15 "$out/nvidia-smi.txt" || true

# libraries the build needs, from the system or from carried .debs
deps="gsl yaml-0.1 cairo check"
if ! pkg-config --exists $deps 2> /dev/null || [ -n "${DEVDEPS:-}" ]; then
    devdeps=${DEVDEPS:-.devdeps}
    if ls "$devdeps"/*.deb > /dev/null 2>&1; then
        root=/tmp/ic-sysroot
        mkdir -p "$root"
        for f in "$devdeps"/*.deb; do dpkg -x "$f" "$root"; done
        multi=$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)
        # infcalc links these dynamically: the private requirements (glib for
        # cairo, say) only matter to static links, and are not carried
        sed -i '/^Requires.private/d' "$root"/usr/lib/"$multi"/pkgconfig/*.pc \
            "$root"/usr/share/pkgconfig/*.pc 2> /dev/null || true
        export PKG_CONFIG_SYSROOT_DIR="$root"
        export PKG_CONFIG_LIBDIR="$root/usr/lib/$multi/pkgconfig:$root/usr/share/pkgconfig"
        export LD_LIBRARY_PATH="$root/usr/lib/$multi${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export LIBRARY_PATH="$root/usr/lib/$multi${LIBRARY_PATH:+:$LIBRARY_PATH}"
        command -v pkg-config > /dev/null || export PKG_CONFIG="$root/usr/bin/pkgconf"
        command -v pkg-config > /dev/null || export PATH="$PATH:$root/usr/bin"
        note "libraries: unpacked $(ls "$devdeps"/*.deb | wc -l) packages from $devdeps into $root"
    fi
    for d in $deps; do
        pkg-config --exists "$d" 2> /dev/null || note "missing library: $d (pkg-config)"
    done
    pkg-config --exists $deps || { note "device-check: cannot build without them"; exit 3; }
fi
for p in meson ninja nvcc; do
    command -v "$p" > /dev/null || { note "device-check: $p not found"; exit 3; }
done

jobs=${JOBS:-$(nproc 2> /dev/null || echo 8)}
rm -rf "$build"
stage build 300 "$out/build.log" sh -c "meson setup '$build' -Dcuda=enabled -Dnative=true \
    -Dbuildtype=release && meson compile -C '$build' -j $jobs"
ic="$build/src/infcalc"
export INFCALC_DB="$PWD"

# the CUDA kernel against the CPU kernel (exit 77 would mean no device)
stage test-cuda 150 "$out/test-cuda.log" meson test -C "$build" --suite cuda --print-errorlogs ||
    note "test-cuda: FAILED (see test-cuda.log and $build/meson-logs/testlog.txt)"
cp "$build/meson-logs/testlog.txt" "$out/test-cuda-testlog.txt" 2> /dev/null || true

stage bench 180 "$out/bench.log" "$ic" bench --device cuda --out "$out/bench-$name.yaml" \
    --name "this-$name" || { note "bench failed: no entry to validate against"; exit 1; }
cat "$out/bench.log"
stage validate 300 "$out/validate.log" "$ic" validate --device cuda \
    --hw "$out/bench-$name.yaml" --csv "$out/validate-$name.csv" \
    --plot-prefix "$out/validate-$name" || note "validate failed (see validate.log)"
# the report (stdout) is the part after the per-point progress lines
grep -v '^validate \[\|^validate: making' "$out/validate.log" || true
note "device-check: total $(($(date +%s) - t_start)) s; files in $out:"
ls -l "$out" | tee -a "$sum"
