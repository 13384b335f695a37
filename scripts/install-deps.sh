#!/bin/sh
# Installs the Debian 12 packages infcalc needs to build, test and draw,
# asking apt only for what is missing. Run as root (or with sudo).
# --browser adds what the end-to-end test of `infcalc serve` drives: Debian's
# chromium and chromedriver (and Node.js where there is no node).
set -eu
pkgs="gcc libgsl-dev libcairo2-dev libyaml-dev check meson ninja-build pkg-config fonts-dejavu-core valgrind libmicrohttpd-dev"
if [ "${1:-}" = "--browser" ]; then
    pkgs="$pkgs chromium chromium-driver"
    command -v node > /dev/null || pkgs="$pkgs nodejs"
fi
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi
