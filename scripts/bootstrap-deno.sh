#!/usr/bin/env bash
# Installs the pinned Deno from the npm registry when it is not already there,
# and prints the path of the deno binary. Idempotent; safe to run every time.
#
#   AXL_DENO     use this deno binary instead (must be the pinned version)
#   AXL_CACHE    where to install (default: ${XDG_CACHE_HOME:-~/.cache}/axl)
#   AXL_DENO_ARCH=arm64  fetch the linux-arm64 build instead (for qemu-user runs)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=$(tr -d '[:space:]' < "$here/DENO_VERSION")
arch=${AXL_DENO_ARCH:-$(uname -m)}
case $arch in
x86_64 | amd64) pkg=@deno/linux-x64-glibc ;;
aarch64 | arm64) pkg=@deno/linux-arm64-glibc ;;
*) echo "bootstrap-deno: no Deno build for architecture '$arch' on the npm registry" >&2; exit 1 ;;
esac

if [[ -n ${AXL_DENO:-} ]]; then
	echo "$AXL_DENO"
	exit 0
fi

cache=${AXL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/axl}
dest=$cache/deno-$version-${pkg#@deno/}
bin=$dest/package/deno
# A foreign-architecture build is checked through qemu-user.
run=("$bin")
[[ $pkg == *arm64* && $(uname -m) != aarch64 ]] && run=(qemu-aarch64-static -L /usr/aarch64-linux-gnu "$bin")
if [[ -x $bin ]] && "${run[@]}" --version 2>/dev/null | grep -q "^deno $version "; then
	echo "$bin"
	exit 0
fi

if ! command -v npm >/dev/null; then
	echo "bootstrap-deno: npm is required to fetch Deno $version (apt-get install npm)" >&2
	exit 1
fi
echo "bootstrap-deno: installing Deno $version ($pkg) into $dest" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# npm pack fetches the platform package without running install scripts.
(cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null)
rm -rf "$dest"
mkdir -p "$dest"
tar -xzf "$tmp"/*.tgz -C "$dest"
chmod +x "$bin"
[[ $pkg == *x64* && $(uname -m) == x86_64 || $pkg == *arm64* && $(uname -m) == aarch64 ]] &&
	"$bin" --version | head -1 >&2
echo "$bin"
