#!/usr/bin/env bash
# Compile-tests axl.ko against Debian's newest 6.1 and 6.12 kernel headers
# (amd64), with W=1, in copies of kernel/ (the source tree stays clean), then
# builds it through DKMS with kernel/dkms.conf in a private DKMS tree (nothing
# is registered with the system's DKMS). Each build is one test: it passes when
# make succeeds with no compiler warning and axl.ko's vermagic names the kernel.
#
#   scripts/kernel-compile-test.sh [--no-install] [--no-dkms] [SERIES...]
#
# SERIES: 6.1, 6.12 and/or 5.15 (default all three). Headers that apt knows but
# are not installed get installed (linux-headers-<abi>-amd64), unless
# --no-install. --no-dkms leaves out the DKMS builds (they are reported as
# skipped).
#
# 5.15 is the Jetson's kernel series: arm64 cross-builds (W=1) against the two
# kits in ../shared/kernels/ next to the repo (linux-5.15-arm64 and
# linux-5.15-arm64-debug; AXL_KERNEL_KITS overrides the directory). Their
# headers.tar.xz are unpacked once into ${XDG_CACHE_HOME:-~/.cache}/axl/kernels/.
# A missing kit or cross compiler (gcc-aarch64-linux-gnu) is reported as a skip
# that says what is missing, never as a pass. Each build also checks that
# kernel/dkms.conf's BUILD_EXCLUSIVE_KERNEL admits the kernel; DKMS itself is
# not run for the cross builds.
#
# Ends with "ok | N passed | M failed | K skipped" (FAILED when anything
# failed). Exit: 0 all passed, 1 a build failed, 3 cannot run.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$root/scripts/vm/lib.sh" # vm_kit_tree
cd "$root" || exit 3

install=1 dkms=1 series=()
for arg; do
	case $arg in
	--no-install) install=0 ;;
	--no-dkms) dkms=0 ;;
	6.1 | 6.12 | 5.15) series+=("$arg") ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" && exit 0 ;;
	*) echo "kernel-compile-test: unknown argument '$arg' (see --help)" >&2 && exit 3 ;;
	esac
done
((${#series[@]})) || series=(6.1 6.12 5.15)

passed=0 failed=0 skipped=0 problems=()
say() { printf 'kernel-compile-test: %s\n' "$*"; }
pass() { passed=$((passed + 1)) && say "ok: $*"; }
fail() { failed=$((failed + 1)) && problems+=("$1") && say "FAIL: $*"; }
skip() { skipped=$((skipped + 1)) && say "skip: $*"; }

# abi_regex SERIES — the Debian ABI names of a series: 6.1.0-NN, 6.12.NNN+deb12.
abi_regex() {
	case $1 in
	6.1) echo '6\.1\.0-[0-9]+' ;;
	6.12) echo '6\.12\.[0-9]+\+deb12' ;;
	esac
}

# newest_headers SERIES — newest linux-headers-<abi>-amd64 apt or dpkg knows.
newest_headers() {
	local re
	re="^linux-headers-($(abi_regex "$1"))-amd64\$"
	{
		apt-cache pkgnames "linux-headers-$1." 2>/dev/null || true
		dpkg-query -W -f='${Package}\n' "linux-headers-$1.*" 2>/dev/null || true
	} | grep -E "$re" | sort -uV | tail -n 1
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# apt_get ARGS... — apt-get as root, quietly.
apt_get() {
	local sudo=()
	[[ $(id -u) == 0 ]] || sudo=(sudo)
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -qq "$@" >/dev/null
}
apt_install() { apt_get install -y --no-install-recommends "$@"; }
apt_update() { apt_get update; }

for tool in make gcc; do
	command -v "$tool" >/dev/null || { say "needs $tool (apt-get install make gcc)" && exit 3; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -nE 's/^PACKAGE_VERSION="?([^"]*)"?$/\1/p' kernel/dkms.conf)
[[ -n $version ]] || { say "kernel/dkms.conf has no PACKAGE_VERSION" && exit 3; }

# fresh_copy DIR — kernel/ without build products.
fresh_copy() {
	mkdir -p "$1" && cp -r kernel/. "$1/" &&
		find "$1" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
			-o -name 'Module.symvers' -o -name 'modules.order' \) -delete
}

# check_module KO KVER LOG NAME — vermagic and warnings of one build.
check_module() {
	local ko=$1 kver=$2 log=$3 name=$4 vermagic warnings
	if [[ ! -f $ko ]]; then
		fail "$name: no axl.ko produced (log: see above)"
		return
	fi
	vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null || true)
	warnings=$(grep -E 'warning:' "$log" || true)
	if [[ $vermagic != "$kver "* ]]; then
		fail "$name: vermagic '$vermagic' does not name $kver"
	elif [[ -n $warnings ]]; then
		printf '%s\n' "$warnings"
		fail "$name: compiler warnings"
	else
		pass "$name ($(stat -c %s "$ko") bytes, vermagic $vermagic)"
	fi
}

# exclusive_ok KVER — kernel/dkms.conf's BUILD_EXCLUSIVE_KERNEL admits KVER.
exclusive_re=$(sed -nE 's/^BUILD_EXCLUSIVE_KERNEL="?([^"]*)"?$/\1/p' kernel/dkms.conf)
exclusive_ok() { [[ -z $exclusive_re ]] || grep -qE "$exclusive_re" <<<"$1"; }

# kit_build FLAVOUR — cross-build for one arm64 5.15 kit.
kit_build() {
	local flavour=$1 kits tar release tree src log rc start
	kits=${AXL_KERNEL_KITS:-$root/../shared/kernels}
	tar=$kits/$flavour/headers.tar.xz
	if [[ ! -f $tar || ! -f $kits/$flavour/RELEASE ]]; then
		skip "5.15 $flavour: not run, no kernel kit at $kits/$flavour (headers.tar.xz and RELEASE; see AXL_KERNEL_KITS, or build the kits with scripts/vm/kernel-kit.sh)"
		return
	fi
	if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
		skip "5.15 $flavour: not run, no aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu)"
		return
	fi
	release=$(<"$kits/$flavour/RELEASE")
	tree=$(vm_kit_tree "$kits/$flavour") || { fail "5.15 $flavour: cannot unpack $tar" && return; }
	src=$work/make-$release
	fresh_copy "$src"
	log=$work/make-$release.log
	say "make -C <kit $flavour> ARCH=arm64 M=<copy of kernel/> W=1 modules ($release)"
	start=$(date +%s)
	make -s -C "$tree" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- M="$src" W=1 modules \
		>"$log" 2>&1
	rc=$?
	cat "$log"
	if ((rc != 0)); then
		fail "make $release (arm64): exit $rc"
		return
	fi
	if ! exclusive_ok "$release"; then
		fail "kernel/dkms.conf BUILD_EXCLUSIVE_KERNEL '$exclusive_re' does not admit $release"
		return
	fi
	check_module "$src/axl.ko" "$release" "$log" "make $release (arm64) in $(($(date +%s) - start)) s"
}

updated=0
for s in "${series[@]}"; do
	if [[ $s == 5.15 ]]; then
		kit_build linux-5.15-arm64
		kit_build linux-5.15-arm64-debug
		continue
	fi
	pkg=$(newest_headers "$s")
	# A fresh machine's package lists may predate the series (6.12 reached
	# bookworm through its security and point-release updates): refresh once.
	if [[ -z $pkg ]] && ((install && !updated)); then
		say "apt knows no linux-headers-$s.*-amd64; running apt-get update"
		updated=1
		apt_update && pkg=$(newest_headers "$s")
	fi
	if [[ -z $pkg ]]; then
		fail "$s: apt knows no linux-headers-$s.*-amd64 (add Debian bookworm(-updates/-backports) and run apt-get update)"
		continue
	fi
	kver=${pkg#linux-headers-}
	if ! installed "$pkg"; then
		if ((!install)); then
			fail "$s: $pkg is not installed (apt-get install $pkg, or drop --no-install)"
			continue
		fi
		say "installing $pkg"
		apt_install "$pkg" || { fail "$s: apt-get install $pkg failed" && continue; }
	fi
	kdir=/usr/src/$pkg
	exclusive_ok "$kver" ||
		fail "kernel/dkms.conf BUILD_EXCLUSIVE_KERNEL '$exclusive_re' does not admit $kver"

	# 1. Plain out-of-tree build with extra warnings.
	src=$work/make-$kver
	fresh_copy "$src"
	log=$work/make-$kver.log
	say "make -C kernel KDIR=$kdir W=1 ($kver)"
	start=$(date +%s)
	make -s -C "$src" KDIR="$kdir" W=1 >"$log" 2>&1
	rc=$?
	cat "$log"
	if ((rc != 0)); then
		fail "make $kver: exit $rc"
	else
		check_module "$src/axl.ko" "$kver" "$log" "make $kver in $(($(date +%s) - start)) s"
	fi

	# 2. DKMS build from kernel/dkms.conf, in a private tree.
	if ((!dkms)); then
		skip "dkms $kver (--no-dkms)"
		continue
	fi
	if ! command -v dkms >/dev/null; then
		skip "dkms $kver: dkms is not installed (apt-get install dkms)"
		continue
	fi
	tree=$work/dkms-tree-$kver sources=$work/dkms-src-$kver
	fresh_copy "$sources/axl-$version"
	mkdir -p "$tree"
	say "dkms build -m axl -v $version -k $kver (private tree)"
	log=$work/dkms-$kver.log
	dkms build -m axl -v "$version" -k "$kver" --dkmstree "$tree" --sourcetree "$sources" \
		>"$log" 2>&1
	rc=$?
	if ((rc != 0)); then
		cat "$log"
		cat "$tree/axl/$version/build/make.log" 2>/dev/null
		fail "dkms $kver: exit $rc"
		continue
	fi
	ko=$(find "$tree/axl/$version/$kver" -name 'axl.ko*' | head -n 1)
	make_log=$(find "$tree/axl/$version/$kver" -name make.log | head -n 1)
	check_module "$ko" "$kver" "${make_log:-/dev/null}" "dkms $kver"
done

((${#problems[@]})) && say "problems: ${problems[*]}"
status=ok
((failed)) && status=FAILED
echo "$status | $passed passed | $failed failed | $skipped skipped"
((failed == 0))
