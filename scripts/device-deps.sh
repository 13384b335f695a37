#!/bin/sh
# Run HERE (a Debian machine with apt), not on the device machine: downloads
# the .deb files of the libraries infcalc builds against (GSL, libyaml,
# cairo and what its pkg-config file requires, Check, pkg-config; libbsd0
# and libmd0, which libXdmcp needs at link time) into
# DIR (default .devdeps/, which .git/info/exclude should list), for a
# device machine that lacks them and cannot reach a registry. There,
# scripts/device-check.sh unpacks them under /tmp/ic-sysroot (never into /)
# when pkg-config cannot find the libraries; pass the folder in the device
# call's `carry`. About 13 MB. Not needed where the -dev packages exist.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-.devdeps}
mkdir -p "$dir"
cd "$dir"
apt-get download check libbrotli-dev libbrotli1 libbsd0 libcairo2 libcairo2-dev libexpat1-dev \
    libfontconfig-dev libfontconfig1 libfreetype-dev libfreetype6 libgsl-dev libgsl27 \
    libgslcblas0 libmd0 libpixman-1-0 libpixman-1-dev libpkgconf3 libpng-dev libpng16-16 \
    libpthread-stubs0-dev libsubunit-dev libsubunit0 libx11-6 libx11-data libx11-dev \
    libxau-dev libxau6 libxcb-render0 libxcb-render0-dev libxcb-shm0 libxcb-shm0-dev libxcb1 \
    libxcb1-dev libxdmcp-dev libxdmcp6 libxext-dev libxext6 libxrender-dev libxrender1 \
    libyaml-0-2 libyaml-dev pkg-config pkgconf pkgconf-bin x11proto-core-dev x11proto-dev \
    x11proto-render-dev xorg-sgml-doctools xtrans-dev zlib1g-dev
du -sh .
