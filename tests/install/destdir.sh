#!/bin/sh
# meson install into a DESTDIR outside the build and source trees, then the
# installed infcalc run from elsewhere with no INFCALC_DB: it must read the
# DESTDIR's databases (found relative to the program), draw the main job's
# chart, keep reading them after the tree is moved, and still yield to
# --db and INFCALC_DB. Also checks the man page and the bash completion are
# installed.
#   destdir.sh BUILD_DIR PREFIX BINDIR DATADIR MANDIR SOURCE_ROOT IC_DATADIR relocatable|fixed
set -eu
build=$1 prefix=$2 bindir=$3 datadir=$4 mandir=$5 src=$6 icdata=$7
if [ "$8" != relocatable ]; then
    echo "skip: -Ddata_dir fixes the data folder; a DESTDIR install cannot be run in place"
    exit 77
fi
tmp=$(mktemp -d /tmp/infcalc-destdir.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
rel() { case $1 in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }

DESTDIR="$tmp/root" meson install -C "$build" --no-rebuild --quiet > "$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "meson install"; }
root=$tmp/root
bin=$root$(rel "$bindir")/infcalc
data=$root$(rel "$icdata")
[ -x "$bin" ] || fail "no $bin"
[ -f "$data/hwdb/tpu-v5e.yaml" ] && [ -f "$data/modeldb/llama3-70b.yaml" ] ||
    fail "databases not under $data"
[ -f "$data/enginedb/vllm-0.19.yaml" ] || fail "enginedb/ not under $data"
[ -f "$root$(rel "$mandir")/man1/infcalc.1" ] || fail "no man page"
comp=$root$(rel "$datadir")/bash-completion/completions/infcalc
[ -f "$comp" ] || fail "no bash completion at $comp"
if [ -d "$src/published" ]; then
    [ -d "$data/published" ] || fail "published/ not installed"
fi

# An entry only the installed hwdb has: listing it proves which data is read.
sed 's/^name: tpu-v5e$/name: destdir-only-chip/; s/^aliases:.*$/aliases: [destdir-only]/' \
    "$data/hwdb/tpu-v5e.yaml" > "$data/hwdb/destdir-only-chip.yaml"

run() { # cwd /tmp-like, no INFCALC_DB, the source tree nowhere in sight
    (cd "$tmp" && env -u INFCALC_DB HOME="$tmp" "$@")
}
run "$bin" list hw > "$tmp/list.txt" || fail "list hw"
run "$bin" list engines | grep -q '^vllm-0.19 ' || fail "the installed infcalc lists no engine profiles"
grep -q destdir-only-chip "$tmp/list.txt" || fail "the installed infcalc did not read $data"

run "$bin" --model llama3-70b --hw v5e --chips 16 --sweep batch > "$tmp/sweep.txt" ||
    fail "the main job"
grep -q 'largest batch that fits 166' "$tmp/sweep.txt" || fail "main job output: $(head -3 "$tmp/sweep.txt")"
run "$bin" --model llama3-70b --hw v5e --chips 16 --sweep batch --plot "$tmp/pareto.png" \
    > /dev/null || fail "--plot"
[ "$(head -c 4 "$tmp/pareto.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "no PNG chart"

# A tree moved elsewhere (a relocated prefix) reads its own copy.
mv "$root" "$tmp/moved"
mbin=$tmp/moved$(rel "$bindir")/infcalc
run "$mbin" list hw | grep -q destdir-only-chip || fail "a moved install lost its databases"

# --db and INFCALC_DB win over the installed folder.
run "$mbin" list hw --db "$src" | grep -q destdir-only-chip && fail "--db did not override"
(cd "$tmp" && INFCALC_DB="$src" "$mbin" list hw) | grep -q destdir-only-chip &&
    fail "INFCALC_DB did not override"

# Without its databases it says which folder it looked in.
rm -rf "$tmp/moved$(rel "$icdata")"
if run "$mbin" list hw > /dev/null 2> "$tmp/err.txt"; then
    fail "ran without databases"
fi
grep -q "no hwdb/ folder" "$tmp/err.txt" || fail "error: $(cat "$tmp/err.txt")"
echo "ok: installed under DESTDIR, read $data, moved, overridden"
