#!/bin/sh
# End-to-end: `infcalc serve` on 127.0.0.1 and its page in Debian's headless
# chromium (through chromedriver), the batch slider moved, the table and
# charts checked (tests/browser/e2e.mjs). Skips (exit 77) with a message
# where node, chromium or chromedriver is missing or cannot start.
# Usage: browser.sh INFCALC OUTDIR
set -eu
IC=$1
OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
command -v node > /dev/null || skip "no node (scripts/install-deps.sh --browser installs it)"
[ -x /usr/bin/chromium ] || skip "no /usr/bin/chromium (apt-get install chromium)"
command -v chromedriver > /dev/null || skip "no chromedriver (apt-get install chromium-driver)"
node -e 'if (typeof fetch !== "function") process.exit(1)' || skip "node has no fetch (node 18 or later)"
rm -rf "$OUT"
mkdir -p "$OUT/profile"
pids=""
cleanup() { for p in $pids; do kill "$p" 2> /dev/null || true; done; }
trap cleanup EXIT INT TERM

"$IC" serve --port 0 > "$OUT/serve.log" 2>&1 &
pids="$pids $!"
port=""
for _ in $(seq 50); do
    port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$OUT/serve.log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$OUT/serve.log"; echo "FAIL: infcalc serve did not start"; exit 1; }

# chromedriver on a free port of its own choosing is not offered; try a few
dport=""
for p in 9515 9616 9717 9818 9919; do
    chromedriver --port="$p" > "$OUT/chromedriver.log" 2>&1 &
    dpid=$!
    for _ in $(seq 30); do
        # ours, not another run's on the same port: that one answers
        # /status while ours fails to bind and exits (two suites at once)
        if grep -q "started successfully" "$OUT/chromedriver.log" &&
            kill -0 "$dpid" 2> /dev/null &&
            node -e "fetch('http://127.0.0.1:$p/status').then(r=>r.json()).then(j=>process.exit(j.value.ready?0:1)).catch(()=>process.exit(1))"; then
            dport=$p
            break
        fi
        kill -0 "$dpid" 2> /dev/null || break
        sleep 0.2
    done
    if [ -n "$dport" ]; then pids="$pids $dpid"; break; fi
    kill "$dpid" 2> /dev/null || true
done
[ -n "$dport" ] || { cat "$OUT/chromedriver.log"; skip "chromedriver did not start"; }

set +e
node "$here/browser/e2e.mjs" "http://127.0.0.1:$port/" "http://127.0.0.1:$dport" \
    "$OUT/serve-page.png" "$OUT/profile" 2>&1
rc=$?
set -e
if [ $rc -ne 0 ] && grep -q "session not created\|Chrome failed to start\|DevToolsActivePort" "$OUT"/*.log 2> /dev/null; then
    skip "chromium cannot start here"
fi
exit $rc
