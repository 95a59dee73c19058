#!/usr/bin/env bash
# Installs the Debian packages the build and the host tests need, when missing.
# Idempotent and quiet when everything is there. The VM rig installs its own
# (kernel image and headers, QEMU) through scripts/vm/ensure.sh.
#
#   scripts/setup.sh            everything the test suite needs
#   scripts/setup.sh --build    only what 'deno task build' needs
set -euo pipefail

build=(gcc libc6-dev make gcc-aarch64-linux-gnu libc6-dev-arm64-cross pkg-config
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev)
tests=(qemu-user-static tmux linux-perf chromium dkms libdrm-dev
	gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
	gstreamer1.0-plugins-bad
	flex bison # kconfig's parser, for the kernel-kit configuration test
	# verify --junit and --metrics are checked against the JUnit XSD (xmllint) and by promtool
	libxml2-utils prometheus
	apparmor # apparmor_parser: axl_robust confines a child to check the iova check audits nothing
	# the nvbufsurface.h declaration and ffi/src/argus.cpp compiled as C++ (tests/jetson/)
	g++ g++-aarch64-linux-gnu libegl-dev)

want=("${build[@]}")
[[ ${1:-} == --build ]] || want+=("${tests[@]}")

missing=()
for pkg in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$pkg")
done
((${#missing[@]})) || exit 0

sudo=()
if [[ $(id -u) != 0 ]]; then
	if command -v sudo >/dev/null; then
		sudo=(sudo)
	else
		echo "setup: missing Debian packages and not root: apt-get install ${missing[*]}" >&2
		exit 3
	fi
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists; refresh them once when a package is unknown.
if ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then
	"${sudo[@]}" apt-get update -qq
fi
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
