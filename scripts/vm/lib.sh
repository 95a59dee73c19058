# shellcheck shell=bash
# Shared helpers for the VM rig scripts (sourced, not executed).
#
# The rig boots Debian's newest 6.12 kernel under QEMU/TCG. Everything it
# derives from the host (PVH vmlinux, initramfs, module build) is cached under
# $AXL_VM_CACHE, keyed by kernel release and input hashes.

# Exit codes shared by ensure.sh and run.sh. 0..255 from the guest command pass
# through unchanged; these are the rig's own outcomes.
# shellcheck disable=SC2034 # used by the scripts that source this file
readonly AXL_VM_EXIT_CANNOT_RUN=3 # rig could not be set up (packages, options)
readonly AXL_VM_EXIT_TIMEOUT=124  # --timeout expired (same as timeout(1))
readonly AXL_VM_EXIT_CRASH=125    # kernel panic/oops, or the guest died silently

AXL_VM_CACHE=${AXL_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/axl/vm}

vm_log() { printf 'axl-vm: %s\n' "$*" >&2; }

# vm_die MESSAGE... — print what failed and what to do, exit "cannot run".
vm_die() {
	printf 'axl-vm: error: %s\n' "$*" >&2
	exit "$AXL_VM_EXIT_CANNOT_RUN"
}

# vm_apt ARGS... — apt-get as root (through sudo when not root).
vm_apt() {
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null || vm_die "not root and no sudo: run as root: apt-get $*"
		sudo=(sudo)
	fi
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get "$@" >&2
}

# vm_flavour_suffix RT — "amd64" or "rt-amd64".
vm_flavour() { if [[ ${1:-0} == 1 ]]; then echo rt-amd64; else echo amd64; fi; }

# vm_newest_abi FLAVOUR — newest Debian 6.12 ABI name ("6.12.117+deb12") that
# apt knows for the flavour, installed or not. Empty when apt knows none. The
# answer is remembered until apt's lists or dpkg's status change (apt-cache
# takes ~1 s).
vm_newest_abi() {
	local flavour=$1 re key memo abi
	key=$(stat -c '%Y' /var/lib/apt/lists /var/lib/dpkg/status 2>/dev/null | tr '\n' ' ')
	memo=$AXL_VM_CACHE/newest-$flavour
	if [[ -r $memo ]] && read -r mkey abi < <(tr '|' ' ' <"$memo") && [[ "$mkey" == "${key// /_}" && -n $abi ]]; then
		echo "$abi"
		return
	fi
	re="^linux-image-(6\.12\.[0-9]+\+deb12)-${flavour}-unsigned\$"
	abi=$({
		apt-cache pkgnames linux-image-6.12. 2>/dev/null || true
		dpkg-query -W -f='${Package}\n' 'linux-image-6.12.*' 2>/dev/null || true
	} | sed -nE "s/${re}/\\1/p" | sort -uV | tail -n 1)
	if [[ -n $abi ]]; then
		mkdir -p "$AXL_VM_CACHE" && echo "${key// /_}|$abi" >"$memo"
	fi
	echo "$abi"
}

# vm_pkg_installed PKG — true when dpkg has PKG fully installed.
vm_pkg_installed() {
	[[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]
}

# vm_hash FILE... — one sha256 over the contents of all files, in order.
vm_hash() { cat -- "$@" | sha256sum | cut -c1-16; }

# vm_lock DIR — hold an exclusive lock on DIR/.lock for the rest of the
# process, so that concurrent rig runs do not build the same cache entry.
vm_lock() {
	mkdir -p "$1"
	exec {AXL_VM_LOCK_FD}>"$1/.lock"
	if ! flock -w 600 "$AXL_VM_LOCK_FD"; then
		vm_die "timed out waiting for the lock on $1 (another rig build is stuck?)"
	fi
}

vm_unlock() {
	[[ -n ${AXL_VM_LOCK_FD:-} ]] || return 0
	exec {AXL_VM_LOCK_FD}>&-
	unset AXL_VM_LOCK_FD
}
