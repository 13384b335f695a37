#!/bin/sh
# README quick start, part 2: build with warnings as errors and run the whole
# test suite (unit suites, whole-grid sanity, examples, the quick self-check),
# then again under AddressSanitizer + UndefinedBehaviorSanitizer (meson test
# --setup asan), then the unit suites under valgrind memcheck (--setup
# valgrind). Exits non-zero on any failure.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh --browser
jobs=$(nproc 2>/dev/null || echo 2)

setup() {
    dir=$1
    shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" > /dev/null
    else
        meson setup "$dir" "$@"
    fi
}
# The default build: the kernel's SIMD chosen at run time (-Dnative=false),
# so it also runs the installed-into-DESTDIR test and the man page and
# completion checks (suite install).
setup build-ci -Dwerror=true -Dnative=false
meson compile -C build-ci
meson test -C build-ci --print-errorlogs --num-processes "$jobs"

# The core library alone (-Dtool=false: no cairo, no program) and its unit
# tests (the whole-grid sanity check already ran on the same core above).
setup build-core -Dwerror=true -Dtool=false
meson compile -C build-core
meson test -C build-core --suite unit --suite sim --print-errorlogs --num-processes "$jobs"

# GCC's -fsanitize=undefined leaves out float-cast-overflow; ask for it.
# CUDA stays out of the sanitized and valgrind builds (the CUDA runtime's own
# allocations are not ours to police, and nvcc does not take -fsanitize); the
# plain build above compiles and links it, and its tests skip without a GPU.
# (A build folder made before an option existed is set up again to learn it.)
setup build-asan -Dwerror=true -Dcuda=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug \
    -Dc_args=-fsanitize=float-cast-overflow -Dc_link_args=-fsanitize=float-cast-overflow
meson compile -C build-asan
meson test -C build-asan --setup asan --print-errorlogs --num-processes "$jobs"

# valgrind 3.19 does not decode AVX-512, and its CPUID says so: the kernel's
# runtime dispatch picks the AVX2 build under it (tests/test_simd checks the
# variants the CPU reports). INFCALC_SIMD=portable would force the baseline.
# The unit suites only.
setup build-valgrind -Dwerror=true -Dnative=false -Dcuda=disabled
meson compile -C build-valgrind
meson test -C build-valgrind --setup valgrind --suite unit --print-errorlogs \
    --num-processes "$jobs"

# One closing line over the three runs, from meson's logs.
passed=0
failed=0
for log in build-ci/meson-logs/testlog.json build-core/meson-logs/testlog.json \
           build-asan/meson-logs/testlog-asan.json \
           build-valgrind/meson-logs/testlog-valgrind.json; do
    [ -f "$log" ] || continue
    p=$(grep -c '"result": "OK"' "$log" || true)
    f=$(grep -c -E '"result": "(FAIL|ERROR|TIMEOUT|UNEXPECTEDPASS)"' "$log" || true)
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
