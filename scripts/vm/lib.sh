# shellcheck shell=bash
# Shared helpers for the VM rig scripts (sourced, not executed).
#
# The rig boots Debian's newest 6.12 kernel (x86_64) or an arm64 5.15 kit
# kernel under QEMU/TCG. Everything it derives (PVH vmlinux, initramfs, arm64
# userland, device tree, module build) is cached under $AXL_VM_CACHE, keyed by
# kernel release and input hashes.

# Exit codes shared by ensure.sh and run.sh. 0..255 from the guest command pass
# through unchanged; these are the rig's own outcomes.
# shellcheck disable=SC2034 # used by the scripts that source this file
readonly AXL_VM_EXIT_CANNOT_RUN=3 # rig could not be set up (packages, options)
readonly AXL_VM_EXIT_TIMEOUT=124  # --timeout expired (same as timeout(1))
readonly AXL_VM_EXIT_CRASH=125    # kernel panic/oops, or the guest died silently

AXL_VM_CACHE=${AXL_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/axl/vm}

# The Jetson-shaped arm64 machine: GICv3, the SMMUv3 in front of PCI (so the
# edu device's DMA goes through it), and a CPU with a PMU for perf. The CMA
# area of its device tree is as large as a Jetson's linux,cma node.
# shellcheck disable=SC2034 # used by the scripts that source this file
vm_arm64_machine=(-machine virt,gic-version=3,iommu=smmuv3 -cpu max)
AXL_VM_ARM64_CMA_MIB=${AXL_VM_ARM64_CMA_MIB:-256}

vm_log() { printf 'axl-vm: %s\n' "$*" >&2; }

# vm_vcpu_dump MONITOR_SOCKET OUT [KALLSYMS] — where a guest's vCPUs are, from QEMU's
# monitor: three looks at every vCPU's registers a second apart (a loop shows as the
# same few PCs), then each PC (arm64 PC=, x86_64 RIP=) named from the guest's
# /proc/kallsyms when it was saved. For a guest that stopped making progress with
# nothing in its log and no user space left to say why (docs/rig.md).
vm_vcpu_dump() {
	local sock=$1 out=$2 syms=${3:-} i
	for i in 1 2 3; do
		printf 'info registers -a\n' | socat -t 5 - "UNIX-CONNECT:$sock" >>"$out" 2>&1 || return 0
		echo >>"$out"
		sleep 1
	done
	[[ -n $syms && -s $syms ]] || return 0
	grep -oiE '\b(PC|RIP)=[0-9a-f]{16}' "$out" | cut -d= -f2 | tr 'A-F' 'a-f' |
		vm_kallsyms_names "$syms" | sed 's/^/PC /' >>"$out"
	vm_vcpu_backtraces "$sock" "$out" "$syms"
}

# vm_kallsyms_names KALLSYMS — each address on stdin (16 lower-case hex digits: string
# order is address order) as "ADDR: SYMBOL [MODULE] (at START)", in the order given, the
# first symbol at the highest start not above it, from one sorted pass over KALLSYMS
# (a stable sort keeps the queries after the symbols at their own address).
vm_kallsyms_names() {
	awk '{ print $1, "~", NR }' |
		LC_ALL=C sort -s -k1,1 "$1" - |
		awk '$2 == "~" { print $3, $1 ": " name " (at " start ")"; next }
			$1 != start { start = $1; name = $3 " " $4 }' |
		sort -n -k1,1 | cut -d' ' -f2-
}

# vm_vcpu_backtraces MONITOR_SOCKET OUT KALLSYMS — an arm64 guest's kernel call chains:
# for each vCPU of the last look in OUT, 8 KiB of its stack read through the monitor,
# then the frame records (x29 -> {caller's x29, return address}) walked from its X29.
vm_vcpu_backtraces() {
	local sock=$1 out=$2 syms=$3 cpu fp sp start mem text_lo text_hi
	# modules' text (axl.ko's) lies below the kernel's
	text_lo=$(awk '($2 == "t" || $2 == "T") && (lo == "" || $1 < lo) { lo = $1 } END { print lo }' "$syms")
	text_hi=$(awk '$3 == "_etext" { print $1; exit }' "$syms")
	# the last look's X29 and SP of each vCPU
	while read -r cpu fp sp; do
		start=$fp
		[[ $sp < $fp ]] && start=$sp
		mem=$(printf 'cpu %s\nx /1024gx 0x%s\n' "$cpu" "$start" |
			socat -t 10 - "UNIX-CONNECT:$sock" 2>/dev/null | tr -d '\r' |
			grep -aoE '[0-9a-f]{16}: 0x[0-9a-f]{16} 0x[0-9a-f]{16}') || continue
		echo "== CPU#$cpu call chain from X29=$fp"
		# frame records are 16-byte aligned, as is SP: each dump line is one candidate record
		awk -v fp="$fp" '{ a = $1; sub(/:$/, "", a); prev[a] = substr($2, 3); ret[a] = substr($3, 3) }
			END { for (i = 0; i < 48 && (fp in ret); i++) { print ret[fp]; fp = prev[fp] } }' <<<"$mem" |
			vm_kallsyms_names "$syms" | sed 's/^/  /'
		# the chain breaks where a frame has no record yet (a leaf, an IRQ stack): the
		# kernel text addresses on the stack, innermost first, say the rest
		echo "== CPU#$cpu kernel text addresses on its stack from $start"
		awk -v lo="$text_lo" -v hi="$text_hi" '{ for (i = 2; i <= 3; i++) { v = substr($i, 3)
				if (v >= lo && v < hi && n++ < 40) print v } }' <<<"$mem" |
			vm_kallsyms_names "$syms" | sed 's/^/  /'
	done < <(tr -d '\r' <"$out" | awk '/^CPU#[0-9]+/ { c = substr($1, 5) }
		match($0, /X29=[0-9a-f]+/) { fp[c] = substr($0, RSTART + 4, 16) }
		match($0, / SP=[0-9a-f]+/) { sp[c] = substr($0, RSTART + 4, 16) }
		END { for (c in fp) if (c in sp) print c, fp[c], sp[c] }') >>"$out"
}

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

# vm_apt_install PKG... — install the packages that are not installed yet.
# With vm_no_install=1 (set by the caller) fail naming them instead.
vm_apt_install() {
	local missing=() p
	for p in "$@"; do vm_pkg_installed "$p" || missing+=("$p"); done
	((${#missing[@]})) || return 0
	if ((${vm_no_install:-0})); then
		vm_die "missing packages: ${missing[*]} (apt-get install -y ${missing[*]}, or drop --no-install)"
	fi
	vm_log "installing ${missing[*]}"
	vm_apt install -y -q --no-install-recommends "${missing[@]}" ||
		vm_die "apt-get install ${missing[*]} failed (see above)"
}

# vm_kit_tree KIT — the external-module build tree of an arm64 kernel kit
# (KIT/headers.tar.xz, KIT/RELEASE; see docs/kernel-kits.md), unpacked
# once under ${XDG_CACHE_HOME:-~/.cache}/axl/kernels/<kit name>/ and again
# only when the tarball is newer. Prints the tree's path; returns 1 when it
# cannot be unpacked.
vm_kit_tree() {
	local kit=$1 release cache tree
	release=$(<"$kit/RELEASE") || return 1
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/axl/kernels/$(basename "$kit")
	tree=$cache/linux-headers-$release
	if [[ ! -f $tree/Makefile || $kit/headers.tar.xz -nt $tree/Makefile ]]; then
		vm_log "unpacking $kit/headers.tar.xz into $cache"
		rm -rf "$cache" && mkdir -p "$cache" && tar -xJf "$kit/headers.tar.xz" -C "$cache" &&
			[[ -f $tree/Makefile ]] || return 1
		touch "$tree/Makefile"
	fi
	echo "$tree"
}

# vm_arm64_kit KITS DEBUG — the kit directory of the arm64 5.15 kernel in KITS
# (linux-5.15-arm64, or linux-5.15-arm64-debug when DEBUG is 1), as an
# absolute path; dies naming what is missing and how to provide it.
vm_arm64_kit() {
	local kit=$1/linux-5.15-arm64
	(($2)) && kit+=-debug
	[[ -d $kit ]] || vm_die "no arm64 kernel kit at $kit: the kits (Image, headers.tar.xz, RELEASE per" \
		"flavour) are expected in ../shared/kernels beside the repo; point --kernel-kit at them, or build" \
		"them from a linux-5.15.y tree with scripts/vm/kernel-kit.sh (docs/kernel-kits.md)"
	(cd "$kit" && pwd)
}

# vm_axl_params PARAM... — axl.ko's parameters in the rig: the rig's defaults that the
# caller does not set, then the caller's. metis-sim computes on a CPU emulated by TCG (and
# instrumented by KASAN on the debug kernel), one to two orders of magnitude slower than
# the hardware axl.ko's 1 s default job timeout is meant for: a 1080p frame took 466 ms
# on the idle arm64 debug guest and timed out when the host was loaded. Jobs get the 10 s
# the tests wait for a fence; the tests of timeouts set timeout_ms themselves. The engine's
# share bounds (sums of job timeouts) grow with it: one file may queue max_jobs (16) jobs
# of the longest timeout, one user (the tests all run as root) and all files four times
# that; the share test sets its own.
vm_axl_params() {
	local defaults=(timeout_ms=10000 max_file_queued_ms=160000
		max_user_queued_ms=640000 max_queued_ms=640000) out=() d
	for d in "${defaults[@]}"; do
		[[ " $* " == *" ${d%%=*}="* ]] || out+=("$d")
	done
	echo "${out[*]}${out[*]:+${*:+ }}$*"
}

# vm_crash_text RESULTS — how the guest of a rig run died, from its run.env:
# the crash line, the kernel's RIP/pc and the last user-space output.
vm_crash_text() {
	local env=$1/run.env crash site during
	crash=$(sed -n 's/^crash=//p' "$env" 2>/dev/null)
	site=$(sed -n 's/^crash_site=//p' "$env" 2>/dev/null)
	during=$(sed -n 's/^crash_during=//p' "$env" 2>/dev/null)
	printf '%s' "${crash:-no exit code reported}"
	[[ -n $site ]] && printf ' at %s' "$site"
	[[ -n $during ]] && printf ', last output "%s"' "$during"
	return 0
}

# vm_check_config CONFIG FRAGMENT... — prints every option a fragment asks for that CONFIG
# does not have (a later fragment overrides an earlier one), one per line as
# "CONFIG_X: asked for V, got W"; returns 1 when there is any.
vm_check_config() {
	local config=$1
	shift
	awk '
		function entry(line) {
			if (match(line, /^CONFIG_[A-Za-z0-9_]+=/)) {
				name = substr(line, 1, RLENGTH - 1); value = substr(line, RLENGTH + 1)
			} else if (match(line, /^# CONFIG_[A-Za-z0-9_]+ is not set$/)) {
				name = substr(line, 3, RLENGTH - 13); value = "n"
			} else return 0
			if (value == "n") value = "not set"
			return 1
		}
		FILENAME != config { if (entry($0)) { asked[name] = value; order[++n] = name }; next }
		{ if (entry($0)) got[name] = value }
		END {
			bad = 0
			for (i = 1; i <= n; i++) {
				name = order[i]
				if (name in seen) continue
				seen[name] = 1
				have = (name in got) ? got[name] : "not set"
				if (have != asked[name]) { printf "%s: asked for %s, got %s\n", name, asked[name], have; bad = 1 }
			}
			exit bad
		}' config="$config" "$@" "$config"
}

# vm_fresh FILE KEY — true when the cache entry FILE exists and FILE.key holds
# KEY (the hash of its inputs); vm_stamp FILE KEY records it.
vm_fresh() { [[ -s $1 && -r $1.key && $(cat "$1.key") == "$2" ]]; }
vm_stamp() { echo "$2" >"$1.key"; }

# vm_arm64_apt ARGS... — apt-get on Debian's arm64 packages through a private
# state under $AXL_VM_CACHE/arm64/apt, so the host's dpkg architectures and
# package state stay as they are. The lists are fetched on first use (or with
# ARGS = update). Output goes to stderr.
vm_arm64_apt() {
	local state=$AXL_VM_CACHE/arm64/apt
	local opts=(-q -o APT::Sandbox::User=root -o APT::Architecture=arm64 -o APT::Architectures::=arm64
		-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Dir::State::status=/dev/null
		-o Debug::NoLocking=1)
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	if [[ $1 != update ]] && ! compgen -G "$state/lists/*_Packages" >/dev/null; then
		apt-get "${opts[@]}" update >&2 || return 1
	fi
	apt-get "${opts[@]}" "$@" >&2
}

# vm_module_build SRC BUILD KEY MAKE_ARGS... — axl.ko built from a copy of the
# module source SRC in the cache directory BUILD, so that the rig never writes
# build products into a working tree another engineer may be building in.
# Rebuilt only when KEY (the kernel's identity) or SRC's sources change; tar
# keeps mtimes, so make only rebuilds what changed. MAKE_ARGS go to make
# (-C <kernel tree> and any ARCH=/CROSS_COMPILE=). Prints BUILD/axl.ko.
vm_module_build() { vm_module_build_named axl "$@"; }

# vm_module_build_named NAME SRC BUILD KEY MAKE_ARGS... — the same for the
# module NAME.ko (the rig's nvmap_sim.ko). Prints BUILD/NAME.ko.
vm_module_build_named() {
	local name=$1 src=$2 build=$3 key=$4
	shift 4
	[[ -e $src/Kbuild || -e $src/Makefile ]] ||
		vm_die "$src has no Kbuild or Makefile yet: write it, or pass --no-module"
	mkdir -p "$build"
	key=$( (
		echo "$key"
		cd "$src" && find . -type f ! -name '*.o' ! -name '*.ko' ! -name '*.cmd' \
			! -name '*.mod*' ! -name 'modules.order' ! -name 'Module.symvers' -print0 |
			LC_ALL=C sort -z | xargs -0 cat
	) | sha256sum | cut -c1-16)
	if ! vm_fresh "$build/$name.ko" "$key"; then
		vm_log "building $name.ko in $build"
		rm -f "$build/$name.ko.key"
		# Sources deleted from the tree must not linger in the copy.
		(cd "$build" && find . -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) -print0) |
			while IFS= read -r -d '' f; do [[ -e $src/$f ]] || rm -f "$build/$f"; done
		(cd "$src" && tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' .) |
			(cd "$build" && tar -xf -)
		make "$@" M="$build" modules >&2 || vm_die "building $name.ko from $src failed (see above)"
		[[ -s $build/$name.ko ]] || vm_die "the module build in $src produced no $name.ko"
		vm_stamp "$build/$name.ko" "$key"
	fi
	echo "$build/$name.ko"
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
