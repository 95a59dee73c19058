#!/usr/bin/env bash
# Prints a sysroot holding Debian bookworm's arm64 GStreamer development files, for
# cross-building the GStreamer tracer (and the rig's NVMM-shaped camera) for aarch64 on an
# x86_64 host without a multiarch install: the packages are fetched with `apt-get download`
# through the rig's private arm64 apt state (scripts/vm/lib.sh, vm_arm64_apt: the host's dpkg
# architectures and package state are not touched) and unpacked with `dpkg -x`.
#
#   ffi/gst-sysroot.sh      prints the directory (built once, again when this list changes)
#
# Use it with PKG_CONFIG_SYSROOT_DIR=DIR and
# PKG_CONFIG_LIBDIR=DIR/usr/lib/aarch64-linux-gnu/pkgconfig:DIR/usr/share/pkgconfig.
# Status messages go to stderr; exit 1 (with the reason) when the packages cannot be fetched.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$root/scripts/vm/lib.sh"

# The -dev packages of gstreamer-1.0, -base, -allocators and -app with the libraries they
# link, and the -dev packages pkg-config walks for their Requires.private (pkgconf resolves
# those for --cflags too): pcre2 for glib, ffi for gobject, unwind and dw for gstreamer, and
# the compressors libdw's and libelf's .pc files require. Only the files pkg-config and the
# linker read are used; nothing here runs.
packages=(libgstreamer1.0-dev libgstreamer1.0-0 libgstreamer-plugins-base1.0-dev
	libgstreamer-plugins-base1.0-0 libglib2.0-dev libglib2.0-0 libpcre2-dev libffi-dev
	libunwind-dev libdw-dev libelf-dev zlib1g-dev liblzma-dev libbz2-dev libzstd-dev)

key=$( (
	printf '%s\n' "${packages[@]}"
	cat "${BASH_SOURCE[0]}"
) | sha256sum | cut -c1-16)
base=${XDG_CACHE_HOME:-$HOME/.cache}/axl/gst-sysroot
dir=$base/aarch64-$key
if [[ -r $dir/.complete ]]; then
	echo "$dir"
	exit 0
fi
command -v dpkg-deb >/dev/null && command -v apt-get >/dev/null || {
	echo "ffi/gst-sysroot.sh: needs apt-get and dpkg-deb (a Debian or Ubuntu host)" >&2
	exit 1
}
# One fetch at a time, and none while a rig run updates the same apt state for its root.
vm_lock "$AXL_VM_CACHE/arm64"
if [[ -r $dir/.complete ]]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$base"
work=$(mktemp -d "$base/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "ffi/gst-sysroot.sh: fetching Debian's arm64 GStreamer development packages into $dir" >&2
if ! (cd "$work" && vm_arm64_apt download "${packages[@]}"); then
	echo "ffi/gst-sysroot.sh: apt-get download of the arm64 packages failed (see above; no" \
		"network, or stale lists: rm -r $AXL_VM_CACHE/arm64/apt/lists and retry)" >&2
	exit 1
fi
mkdir "$work/root"
for deb in "$work"/*.deb; do
	dpkg-deb -x "$deb" "$work/root" || {
		echo "ffi/gst-sysroot.sh: cannot unpack $deb" >&2
		exit 1
	}
done
[[ -r $work/root/usr/lib/aarch64-linux-gnu/pkgconfig/gstreamer-1.0.pc ]] || {
	echo "ffi/gst-sysroot.sh: the unpacked packages have no gstreamer-1.0.pc" >&2
	exit 1
}
touch "$work/root/.complete"
rm -rf "$dir"
mv "$work/root" "$dir"
echo "$dir"
