#!/usr/bin/env bash
# Builds the rig's x86_64 fault kernel: Linux of the same version as the guest's Debian
# 6.12 kernel, from Debian's linux-source-6.12, with the kernel's own fault injection
# (failslab, fail_page_alloc, fail_function, /proc/<pid>/fail-nth) and kmemleak, which
# Debian's kernel has off. run.sh --fault-kernel boots it (docs/rig.md, "The fault kernel").
#
#   scripts/vm/fault-kernel.sh [options]
#
#   --jobs N       parallel make jobs (default: the number of CPUs); make runs under
#                  nice -n 19 so that other work on the machine goes first
#   --config-only  unpack, configure and check the options, no compile
#   --print        build nothing: check that the cached build is current and print what
#                  ensure.sh needs (KEY=VALUE lines); exit 3 when it is missing or stale
#   --no-install   never call apt-get; fail naming the missing packages instead
#
# The source is linux-source-6.12 at the Debian version of the guest's newest
# linux-image-6.12.*+deb12-amd64-unsigned (the tarball is unpacked once per version).
# The configuration is allnoconfig with scripts/vm/kit/x86-vm.config (what the rig's q35
# guest needs, everything built in) and scripts/vm/kit/fault.config (the checkers) merged
# by the kernel's merge_config.sh, then olddefconfig; every option a fragment asks for must
# be in the result, or the script stops naming it. The build (vmlinux, whose PVH entry the
# rig boots directly, and Module.symvers for axl.ko) is cached under
# ${XDG_CACHE_HOME:-~/.cache}/axl/fault-kernel/ (AXL_FAULT_KERNEL_CACHE overrides), keyed
# by the Debian version and the fragments: a changed fragment rebuilds, incrementally.
# About 16 minutes on 2 busy cores (measured: 15 min 45 s).
#
# Exit status: 0 built (or current), 2 bad usage, 3 cannot run or the cached build is
# missing or stale (--print), or the failing make's status.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$here/lib.sh"

fk_usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" >&2
	exit 2
}

jobs=$(nproc) config_only=0 print=0 vm_no_install=0
while (($#)); do
	case $1 in
	--jobs) jobs=${2:?--jobs needs a number} && shift ;;
	--config-only) config_only=1 ;;
	--print) print=1 ;;
	--no-install) vm_no_install=1 ;;
	-h | --help) fk_usage ;;
	*) printf 'fault-kernel.sh: unknown option %s\n' "$1" >&2 && fk_usage ;;
	esac
	shift
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || vm_die "--jobs $jobs: give a positive number"

cache=${AXL_FAULT_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/axl/fault-kernel}
src=$cache/linux-source-6.12
build=$cache/build
fragments=("$here/kit/x86-vm.config" "$here/kit/fault.config")

# fk_debian_version — the Debian version of the guest kernel's package, which is the
# version of linux-source-6.12 to build ("6.12.117-1~deb12u1").
fk_debian_version() {
	local abi version
	abi=$(vm_newest_abi amd64)
	[[ -n $abi ]] || vm_die "apt knows no linux-image-6.12.*+deb12-amd64-unsigned (run scripts/vm/ensure.sh once)"
	version=$(dpkg-query -W -f='${Version}' "linux-image-$abi-amd64-unsigned" 2>/dev/null ||
		apt-cache show --no-all-versions "linux-image-$abi-amd64-unsigned" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1)
	[[ -n $version ]] || vm_die "cannot tell the Debian version of linux-image-$abi-amd64-unsigned"
	echo "$version"
}

# fk_make TARGET... — the kernel's make, out of tree, at the lowest priority.
fk_make() { nice -n 19 make -C "$src" O="$build" "$@"; }

version=$(fk_debian_version)
key=$( (
	echo "$version"
	cat "${fragments[@]}"
) | sha256sum | cut -c1-16)

if ((print)); then
	[[ -s $build/vmlinux && -s $build/Module.symvers ]] ||
		{ vm_log "no fault kernel built in $build: run scripts/vm/fault-kernel.sh (about 16 minutes)"; exit 3; }
	vm_fresh "$build/vmlinux" "$key" ||
		{ vm_log "the fault kernel in $build is not of $version and the current fragments: run scripts/vm/fault-kernel.sh (incremental)"; exit 3; }
	printf '%s=%s\n' FAULT_BUILD "$build" FAULT_KEY "$key" \
		FAULT_RELEASE "$(<"$build/include/config/kernel.release")"
	exit 0
fi

vm_apt_install make gcc bc flex bison libelf-dev libssl-dev xz-utils
vm_lock "$cache"
if ! vm_fresh "$src" "$version"; then
	vm_apt_install "linux-source-6.12=$version"
	vm_log "unpacking linux-source-6.12 $version into $cache"
	rm -rf "$src" "$build"
	nice -n 19 tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$cache"
	[[ -f $src/Makefile ]] || vm_die "/usr/src/linux-source-6.12.tar.xz did not unpack to $src"
	vm_stamp "$src" "$version"
fi

vm_log "configuring in $build"
mkdir -p "$build"
fk_make -s allnoconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${fragments[@]}" >"$build/merge_config.log" ||
	vm_die "merge_config.sh failed (see $build/merge_config.log)"
fk_make -s olddefconfig
if ! missing=$(vm_check_config "$build/.config" "${fragments[@]}"); then
	vm_die "the configuration lacks options the fragments ask for; add what they depend on" \
		"to scripts/vm/kit/x86-vm.config:"$'\n'"$missing"
fi
if ((config_only)); then
	vm_log "configuration checked: $build/.config (no kernel built)"
	exit 0
fi
if vm_fresh "$build/vmlinux" "$key" && [[ -s $build/Module.symvers ]]; then
	vm_log "the fault kernel in $build is current ($version, key $key)"
	exit 0
fi
rm -f "$build/vmlinux.key"
vm_log "building $version with $jobs jobs under nice -n 19 (about 16 minutes on 2 busy cores)"
start=$(date +%s)
fk_make -j"$jobs" vmlinux modules
vm_stamp "$build/vmlinux" "$key"
vm_log "built $(<"$build/include/config/kernel.release") in $(($(date +%s) - start)) s: boot it with" \
	"scripts/vm/run.sh --fault-kernel"
