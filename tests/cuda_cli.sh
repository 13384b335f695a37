#!/bin/sh
# --device on the command line, wherever the tests run: an unknown device is
# a usage error (2); in a build without CUDA, --device cuda is a usage error
# (2) naming the meson option; in a CUDA build on a machine without a
# device, bench and validate fail with 1 and the CUDA runtime's reason. On a
# machine with a device the last check is skipped (the device suite and
# scripts/device-check.sh exercise it there).
set -u
ic=$1
out=$2
built=$3 # "true" when meson built the CUDA code
rm -rf "$out"
mkdir -p "$out"
fail() { echo "cuda_cli: $*" >&2; exit 1; }

"$ic" bench --device tpu > "$out/o.txt" 2> "$out/e.txt"
[ $? -eq 2 ] || fail "--device tpu: expected exit 2"
grep -q "expected cpu or cuda" "$out/e.txt" || fail "--device tpu: message"

if [ "$built" != true ]; then
    for cmd in "bench --device cuda" "validate --device cuda --hw x.yaml"; do
        $ic $cmd > "$out/o.txt" 2> "$out/e.txt"
        [ $? -eq 2 ] || fail "$cmd without CUDA: expected exit 2"
        grep -q "this build has no CUDA support (meson -Dcuda=enabled with nvcc)" "$out/e.txt" ||
            fail "$cmd without CUDA: message"
    done
    echo "cuda_cli: no CUDA in this build; --device cuda refused with exit 2"
    exit 0
fi
"$ic" bench --device cuda --threads 2 > "$out/o.txt" 2> "$out/e.txt"
[ $? -eq 2 ] || fail "--threads with --device cuda: expected exit 2"
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
    echo "cuda_cli: a device is present; the no-device path is not checked here"
    exit 0
fi
"$ic" bench --device cuda --quick --out "$out/gpu.yaml" > "$out/o.txt" 2> "$out/e.txt"
[ $? -eq 1 ] || fail "bench --device cuda without a device: expected exit 1"
grep -q "CUDA" "$out/e.txt" || fail "bench --device cuda without a device: message"
[ ! -e "$out/gpu.yaml" ] || fail "an entry was written without a device"
echo "cuda_cli: CUDA build, no device: bench --device cuda exits 1 ($(cat "$out/e.txt"))"
