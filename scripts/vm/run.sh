#!/usr/bin/env bash
# Boots Debian's newest 6.12 kernel under QEMU/TCG (q35, Intel IOMMU, the `edu`
# PCI device), loads vgem and axl.ko, runs one command as root inside the guest
# with the repo as cwd, and exits with the command's exit code. With --arch
# aarch64: the Jetson-shaped target instead, an arm64 5.15 kit kernel (virt,
# GICv3, SMMUv3 in front of `edu`, a linux,cma heap) over Debian's arm64 userland.
#
#   scripts/vm/run.sh [options] -- <command...>
#   scripts/vm/run.sh --shell [options] [-- <command...>]
#
# The host root is the guest root (9p, read-only; tmpfs on /tmp /var/tmp /run),
# so host paths work unchanged. On aarch64 the root is Debian's arm64 packages
# (9p, under a tmpfs overlay), and the repo and Deno cache are shared at their
# host paths. The command finds:
#   $AXL_RESULTS   a writable directory copied back to --results DIR
#   $AXL_KVER      the guest kernel release
#   $AXL_KERNEL_OFFSETS  the struct offsets of the guest kernel that verify's kprobe
#                  events follow to a buffer's inode (scripts/kernel-offsets.sh; with axl.ko)
#   deno           the pinned Deno on PATH (a copy in guest RAM), DENO_DIR = the
#                  host's Deno cache behind a tmpfs overlay (writes stay in the guest)
#   /sys/kernel/tracing and /sys/kernel/debug mounted
#
# Options:
#   --results DIR         where results go (created; replaced only if it holds an
#                         earlier run's results). Always has console.log, dmesg.txt,
#                         run.env; plus whatever the command wrote to $AXL_RESULTS
#   --timeout SECONDS     whole-run limit, boot included (default 900)
#   --mem SIZE            guest memory (default 2G)
#   --smp N               guest CPUs (default 2)
#   --rt                  boot the PREEMPT_RT flavour (-rt-amd64) of the same 6.12
#   --arch ARCH           x86_64 (default) or aarch64 (also arm64): the arm64 5.15
#                         kernel of a kit (docs/kernel-kits.md), built-in
#                         vgem and vivid, axl.ko and tests cross-built, the
#                         aarch64 shim and the arm64 Deno
#   --kernel-kit DIR      aarch64: the kits' directory (default ../shared/kernels
#                         beside the repo), holding linux-5.15-arm64[-debug]/
#   --debug-kernel        aarch64: the kit's lockdep/KASAN/DMA_API_DEBUG kernel
#   --fault-kernel        x86_64: the fault kernel built here by
#                         scripts/vm/fault-kernel.sh (same 6.12 release as Debian's,
#                         with failslab, fail_page_alloc, fail_function, fail-nth
#                         and kmemleak; vivid and vgem built in); axl.ko and
#                         nvmap_sim.ko built against it (docs/rig.md)
#   --cma-heap NAME       aarch64: linux,cma (default: a device tree with the
#                         Jetson's reserved-memory node, so the CMA heap is
#                         /dev/dma_heap/linux,cma) or reserved (QEMU's own tree:
#                         the kernel's default area, /dev/dma_heap/reserved)
#   --no-module           do not build or load axl.ko
#   --no-nvmap-sim        do not build or load nvmap_sim.ko, the rig's nvmap stand-in
#                         (/dev/dma_heap/nvmap-sim, tests/rig/nvmap_sim/README.md;
#                         loaded by default, with AXL_EXPECT_NVMAP_SIM=1)
#   --module-param K=V    pass a parameter to axl.ko (repeatable)
#   --modprobe 'NAME [K=V...]'  load a Debian module first (repeatable)
#   --vivid               load vivid with allocators=1 (dma-contig, so it attaches
#                         imported dma-bufs) and set AXL_EXPECT_VIVID=1
#   --vkms                x86_64: build vkms.ko once (from linux-source-6.12; Debian
#                         ships none), load it after drm_shmem_helper and
#                         drm_kms_helper, and set AXL_EXPECT_VKMS=1
#   --no-vgem             do not load vgem (loaded by default)
#   --no-deno             leave deno out of the guest (saves ~1 s of boot)
#   --env K=V             set an environment variable for the command (repeatable)
#   --append ARGS         extra kernel command line
#   --tcg-thread MODE     QEMU's TCG threading: single (default; one host thread
#                         runs every vCPU) or multi (a host thread per vCPU).
#                         multi crashes the guest when the kernel patches its own
#                         text (ftrace, static keys) while another vCPU runs:
#                         see scripts/vm/README.md. Also $AXL_VM_TCG_THREAD.
#   --vcpu-dump-after S   when nothing under --results has changed for S seconds,
#                         write stall-vcpus-N.txt there: where every vCPU is, by
#                         QEMU's monitor, PCs named from the guest's kallsyms
#                         (a guest stuck with no user space to say why; docs/rig.md)
#   --qemu-arg ARG        extra QEMU argument, e.g. --qemu-arg -icount
#                         --qemu-arg shift=0,sleep=on (repeatable)
#   --verbose             full kernel log on the console
#   --shell               interactive shell on the console (after the command, if
#                         any); Ctrl-D powers off, Ctrl-A X kills QEMU
#   --no-install          never run apt-get (fail naming missing packages)
#   --no-build-tests      skip the host-side preparation of the device tests
#                         (make -C tests/device/c OUTPUT=build/device-tests when
#                         it has a Makefile; deno check tests/device/*.test.ts)
#
# When the command writes $AXL_RESULTS/summary.txt (run-suite.sh does), its
# content is printed as the last lines, without the console timestamps.
#
# Exit status: the command's, or 3 when the rig cannot run (missing packages,
# bad options, module load failure), 124 on --timeout, 125 when the guest
# kernel panicked/oopsed or the guest stopped without reporting an exit code.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$here/lib.sh"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; }

results='' timeout=900 mem=2G smp=2 shell=0 verbose=0 vgem=1 deno=1 build_tests=1 vcpu_dump_after=0
vkms=0 arch=x86_64 kits=$repo/../shared/kernels debug_kernel=0 fault_kernel=0 cma_heap=linux,cma
tcg_thread=${AXL_VM_TCG_THREAD:-single}
ensure_args=() modules=() module_params=() envs=() append=() qemu_extra=()
need() { (($# > 1)) || vm_die "option $1 needs a value (see --help)"; }
while (($#)); do
	case $1 in
	--results) need "$@" && results=$2 && shift ;;
	--timeout) need "$@" && timeout=$2 && shift ;;
	--mem) need "$@" && mem=$2 && shift ;;
	--smp) need "$@" && smp=$2 && shift ;;
	--rt) ensure_args+=(--rt) ;;
	--arch) need "$@" && arch=$2 && shift ;;
	--kernel-kit) need "$@" && kits=$2 && shift ;;
	--debug-kernel) debug_kernel=1 ;;
	--fault-kernel) fault_kernel=1 && ensure_args+=(--fault-kernel) ;;
	--cma-heap) need "$@" && cma_heap=$2 && shift ;;
	--no-module) ensure_args+=(--no-module) ;;
	--no-nvmap-sim) ensure_args+=(--no-nvmap-sim) ;;
	--no-install) ensure_args+=(--no-install) ;;
	--module-param) need "$@" && module_params+=("$2") && shift ;;
	--modprobe) need "$@" && modules+=("$2") && shift ;;
	--vivid) modules+=("vivid allocators=1") && envs+=(AXL_EXPECT_VIVID=1) ;;
	--vkms) vkms=1 && ensure_args+=(--vkms) && envs+=(AXL_EXPECT_VKMS=1) ;;
	--no-vgem) vgem=0 ;;
	--no-deno) deno=0 ;;
	--no-build-tests) build_tests=0 ;;
	--env) need "$@" && envs+=("$2") && shift ;;
	--append) need "$@" && append+=("$2") && shift ;;
	--qemu-arg) need "$@" && qemu_extra+=("$2") && shift ;;
	--vcpu-dump-after) need "$@" && vcpu_dump_after=$2 && shift ;;
	--tcg-thread) need "$@" && tcg_thread=$2 && shift ;;
	--verbose) verbose=1 ;;
	--shell) shell=1 ;;
	-h | --help) usage && exit 0 ;;
	--) shift && break ;;
	*) vm_die "unknown option '$1' (see --help; the command goes after --)" ;;
	esac
	shift
done
(($# > 0 || shell)) || vm_die "no command given: scripts/vm/run.sh [options] -- <command...> (or --shell)"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || vm_die "--timeout wants whole seconds, got '$timeout'"
[[ $vcpu_dump_after =~ ^[0-9]+$ ]] || vm_die "--vcpu-dump-after wants whole seconds, got '$vcpu_dump_after'"
[[ $smp =~ ^[1-9][0-9]*$ ]] || vm_die "--smp wants a CPU count, got '$smp'"
[[ $mem =~ ^[1-9][0-9]*[MG]?$ ]] || vm_die "--mem wants a size like 2G or 1536M, got '$mem'"
[[ $tcg_thread == single || $tcg_thread == multi ]] ||
	vm_die "--tcg-thread (or AXL_VM_TCG_THREAD) wants single or multi, got '$tcg_thread'"
for kv in "${module_params[@]}" "${envs[@]}"; do
	[[ $kv =~ ^[A-Za-z_][A-Za-z0-9_.]*=.*$ ]] || vm_die "expected K=V, got '$kv'"
done
for m in "${modules[@]}"; do
	[[ $m =~ ^[A-Za-z0-9_-]+( [A-Za-z0-9_.]+=[^ ]*)*$ ]] || vm_die "--modprobe wants 'NAME [K=V...]', got '$m'"
done
if ((${#module_params[@]})) && [[ " ${ensure_args[*]} " == *" --no-module "* ]]; then
	vm_die "--module-param makes no sense with --no-module"
fi
# modules_built_in — the kernel has the --modprobe modules built in: nothing to load, and
# each module's options go on the kernel command line as NAME.K=V.
modules_built_in() {
	local m kv words
	for m in "${modules[@]}"; do
		read -r -a words <<<"$m"
		for kv in "${words[@]:1}"; do append+=("${words[0]}.$kv"); done
	done
	modules=() vgem=0
}
((deno)) && ensure_args+=(--deno)
[[ $arch == arm64 ]] && arch=aarch64
case $arch in
x86_64)
	((!debug_kernel)) || vm_die "--debug-kernel is for --arch aarch64 (x86_64 has --rt)"
	if ((fault_kernel)); then
		[[ " ${ensure_args[*]} " != *" --rt "* ]] || vm_die "--fault-kernel and --rt are two different kernels: pick one"
		((!vkms)) || vm_die "--vkms is for Debian's kernel: the fault kernel has no vkms build"
		# vivid and vgem are built into the fault kernel.
		modules_built_in
	fi
	[[ $cma_heap == linux,cma ]] || vm_die "--cma-heap is for --arch aarch64 (the x86_64 guest has no CMA)"
	;;
aarch64)
	[[ $cma_heap == linux,cma || $cma_heap == reserved ]] ||
		vm_die "--cma-heap wants linux,cma or reserved, got '$cma_heap'"
	[[ " ${ensure_args[*]} " != *" --rt "* ]] || vm_die "--rt is for x86_64: the arm64 kits have no PREEMPT_RT flavour"
	((!fault_kernel)) || vm_die "--fault-kernel is x86_64's (the arm64 kits' fault options: docs/kernel-kits.md)"
	((!vkms)) || vm_die "--vkms is for x86_64: the arm64 kits have no vkms (use the x86_64 guest for kmssink)"
	modules_built_in # the kit kernels have everything built in
	kit=$(vm_arm64_kit "$kits" "$debug_kernel") || exit
	ensure_args+=(--arch aarch64 --kernel-kit "$kit" --mem "$mem" --smp "$smp")
	;;
*) vm_die "--arch wants x86_64 or aarch64, got '$arch'" ;;
esac

t0=$(date +%s.%N)
if ((deno)); then
	deno_dir=${DENO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/deno}
	mkdir -p "$deno_dir"
	deno_dir=$(cd "$deno_dir" && pwd)
fi
declare -A rig=()
while IFS='=' read -r k v; do rig[$k]=$v; done < <("$here/ensure.sh" "${ensure_args[@]}" || echo "FAILED=1")
[[ -z ${rig[FAILED]:-} ]] || exit "$AXL_VM_EXIT_CANNOT_RUN"
initrd=${rig[INITRAMFS]}

# Device tests are prepared on the host, where compilers and tsc are fast:
# the C programs are built, and type-checking the Deno tests fills the check
# cache that the guest sees through its overlay (a cold check under TCG takes
# ~45 s per file). A type error is left for the guest's deno test to report.
if ((build_tests)); then
	if [[ -e $repo/tests/device/c/Makefile ]]; then
		make_c=(OUTPUT="$repo/build/device-tests")
		[[ $arch == aarch64 ]] && make_c=(CC=aarch64-linux-gnu-gcc OUTPUT="$repo/build/aarch64/device-tests")
		make -s -C "$repo/tests/device/c" "${make_c[@]}" >&2 ||
			vm_die "building tests/device/c failed (see above; --no-build-tests skips it)"
	fi
	# The x86_64 host builds its own shim when it needs it; the guest's is cross-built.
	if [[ $arch == aarch64 ]]; then
		bash "$repo/ffi/build.sh" >&2 || vm_die "ffi/build.sh failed (see above; --no-build-tests skips it)"
	fi
	mapfile -t deno_tests < <(find "$repo/tests/device" -maxdepth 1 -name '*.test.ts' | LC_ALL=C sort)
	if ((deno && ${#deno_tests[@]})); then
		# The host's own deno: the guest's may be another architecture's (same version).
		host_deno=${rig[DENO]}
		[[ $arch == aarch64 ]] && host_deno=$("$repo/scripts/bootstrap-deno.sh")
		(cd "$repo" && DENO_DIR=$deno_dir "$host_deno" check --quiet "${deno_tests[@]}") >&2 ||
			vm_log "warning: deno check of tests/device failed on the host; the guest will report it"
	fi
fi
((deno)) && initrd=${rig[INITRAMFS_DENO]}

# Per-run control directory: command, environment, module list; rc comes back.
ctl=$(mktemp -d "${TMPDIR:-/tmp}/axl-vm.XXXXXX")
trap 'rm -rf "$ctl"' EXIT
trap 'exit 130' INT TERM

if [[ -z $results ]]; then
	results=$ctl/results
	mkdir -p "$results"
else
	mkdir -p "$results" || vm_die "cannot create --results $results"
	results=$(cd "$results" && pwd)
	if [[ -n $(ls -A "$results") ]]; then
		[[ -e $results/run.env ]] ||
			vm_die "--results $results is not empty and holds no earlier rig results; pick another directory"
		find "$results" -mindepth 1 -delete
	fi
fi

{
	printf 'export %s=%q\n' AXL_VM 1 AXL_REPO "$repo" AXL_RESULTS /run/axl/results \
		AXL_KVER "${rig[KVER]}" NO_COLOR 1 RUST_BACKTRACE 0
	if ((deno)); then
		printf 'export %s=%q\n' DENO_DIR "$deno_dir" DENO_NO_UPDATE_CHECK 1
		echo "$deno_dir" >"$ctl/deno-dir"
	fi
	[[ $arch == aarch64 ]] && printf 'export %s=%q\n' AXL_DEVICE_TESTS "$repo/build/aarch64/device-tests"
	# verify's kprobe events read a buffer's inode through these where the kernel has no BTF
	# argument names (the arm64 5.15 guest); scripts/kernel-offsets.sh measured them.
	[[ -n ${rig[KERNEL_OFFSETS]:-} ]] && printf 'export %s=%q\n' AXL_KERNEL_OFFSETS /run/axl/ctl/kernel-offsets
	for kv in "${envs[@]}"; do printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"; done
} >"$ctl/env"
((vgem)) && echo vgem >>"$ctl/modules"
for m in "${modules[@]}"; do echo "$m" >>"$ctl/modules"; done
if [[ -n ${rig[AXL_KO]} ]]; then
	cp "${rig[AXL_KO]}" "$ctl/axl.ko"
	vm_axl_params "${module_params[@]}" >"$ctl/axl.params"
	# the guest saves its kallsyms after axl.ko is in, for naming the vCPUs' PCs
	((vcpu_dump_after)) && : >"$ctl/kallsyms.want"
fi
[[ -n ${rig[KERNEL_OFFSETS]:-} ]] && cp "${rig[KERNEL_OFFSETS]}" "$ctl/kernel-offsets"
if [[ -n ${rig[NVMAP_SIM_KO]:-} ]]; then
	cp "${rig[NVMAP_SIM_KO]}" "$ctl/nvmap_sim.ko"
	echo 'export AXL_EXPECT_NVMAP_SIM=1' >>"$ctl/env"
fi
if [[ -n ${rig[VKMS_KO]:-} ]]; then
	cp "${rig[VKMS_KO]}" "$ctl/vkms.ko"
	printf '%s\n' drm_shmem_helper drm_kms_helper >>"$ctl/modules"
fi
if (($#)); then
	{
		printf 'cd %q || exit 3\n' "$repo"
		printf 'exec'
		printf ' %q' "$@"
		printf '\n'
	} >"$ctl/cmd"
fi
((shell)) && touch "$ctl/shell"

# Host directories the guest's tmpfs mounts would hide get their own share; on
# aarch64 the root is not the host's, so every host directory does.
virtfs=(-virtfs "local,path=${rig[ROOT]},mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap")
n=0
for p in "$repo" ${deno_dir:+"$deno_dir"}; do
	case $arch:$p/ in
	aarch64:* | *:/tmp/* | *:/var/tmp/* | *:/run/*)
		virtfs+=(-virtfs "local,path=$p,mount_tag=axlhost$n,security_model=none,readonly=on,multidevs=remap")
		echo "axlhost$n $p" >>"$ctl/mounts"
		n=$((n + 1))
		;;
	esac
done
virtfs+=(-virtfs "local,path=$ctl,mount_tag=axlctl,security_model=none,multidevs=remap")
virtfs+=(-virtfs "local,path=$results,mount_tag=axlresults,security_model=none,multidevs=remap")

# host_tsc_khz — the host's TSC frequency in kHz, or nothing when unknown.
host_tsc_khz() {
	local khz mhz
	if [[ -n ${AXL_VM_TSC_KHZ:-} ]]; then
		echo "$AXL_VM_TSC_KHZ"
	elif khz=$(cat /sys/devices/system/cpu/cpu0/tsc_freq_khz 2>/dev/null) && [[ -n $khz ]]; then
		echo "$khz"
	elif mhz=$(dmesg 2>/dev/null | sed -nE 's/.*(Refined TSC clocksource calibration|tsc: Detected) ([0-9]+\.[0-9]+) MHz.*/\2/p' | tail -n 1) && [[ -n $mhz ]]; then
		echo "${mhz/./}"
	elif grep -qw constant_tsc /proc/cpuinfo && mhz=$(sed -nE 's/^cpu MHz[[:space:]]*: ([0-9]+\.[0-9]{3}).*/\1/p' /proc/cpuinfo | head -n 1) && [[ -n $mhz ]]; then
		echo "${mhz/./}"
	fi
}

if [[ $arch == x86_64 ]]; then
	# no_timer_check: under TCG on a busy host the IO-APIC timer check can fail
	# and, with interrupt remapping on, panic the boot ("timer doesn't work").
	cmdline=(console=ttyS0 panic=-1 oops=panic intel_iommu=on no_timer_check)
	# Under TCG the guest's TSC is the host's, but on a busy host the guest's
	# PIT-based calibration can be off by 30x, and the clocksource watchdog then
	# drops the TSC: guest time runs wrong. Tell the guest the host's frequency.
	tsc_khz=$(host_tsc_khz)
	if [[ $tsc_khz =~ ^[1-9][0-9]{5,7}$ ]]; then
		cmdline+=("tsc_early_khz=$tsc_khz")
	else
		vm_log "warning: host TSC frequency unknown (set AXL_VM_TSC_KHZ); guest time may drift on a busy host"
	fi
else
	# axl.rootrw=1: the guest's init puts a tmpfs overlay on the arm64 root,
	# where the mount points of the host directories are made.
	cmdline=(console=ttyAMA0 panic=-1 oops=panic axl.rootrw=1)
fi
if ((verbose)); then cmdline+=(loglevel=7); else cmdline+=(quiet loglevel=4); fi
# The suite judges the kernel log from boot (tests/device/run-suite.sh): 64 MiB keeps a
# debug kernel's reports, every DMA-API one included (stage2.sh), from pushing out the
# start (a whole debug-kernel suite's log came to 8.8 MB, about 2,900 of them: docs/rig.md).
cmdline+=(log_buf_len=64M)
((shell)) && cmdline+=(axl.shell=1)
cmdline+=("${append[@]}")

# Multi-threaded TCG does not keep one vCPU's translated code coherent with
# another vCPU's write to it, and x86 Linux patches live text with int3
# (text_poke_bp: ftrace, static keys, every tracepoint toggle): a vCPU can
# run a stale translation holding the int3 after the patch is done, and the
# guest dies with "Oops: int3". One TCG thread for all vCPUs cannot race.
# arm64 patches live text under stop_machine, which the same reasoning does
# not cover; it keeps one thread too until measured otherwise.
if [[ $arch == x86_64 ]]; then
	# shellcheck disable=SC2054 # commas inside QEMU option values
	qemu=(qemu-system-x86_64 -machine q35 -cpu max,-erms,-fsrm -device intel-iommu)
else
	# The device tree must be the one dumped for this machine, memory and CPUs.
	qemu=(qemu-system-aarch64 "${vm_arm64_machine[@]}")
	[[ $cma_heap == linux,cma ]] && qemu+=(-dtb "${rig[DTB]}")
fi
qemu+=(-accel "tcg,thread=$tcg_thread" -m "$mem" -smp "$smp" -no-reboot -nic none -device edu
	-kernel "${rig[KERNEL]}" -initrd "$initrd" -append "${cmdline[*]}" "${virtfs[@]}")
[[ -n ${rig[BIOS]} ]] && qemu+=(-bios "${rig[BIOS]}")
qemu+=("${qemu_extra[@]}")

# vcpu_watch S — each time nothing under $results has changed for S seconds, where the
# vCPUs are (the dump itself is a change, so the next one comes S seconds later).
vcpu_watch() {
	local quiet=$1 n=0 newest
	while sleep 10; do
		newest=$(find "$results" -type f -printf '%T@\n' 2>/dev/null | sort -n | tail -n 1)
		newest=${newest:-$(date +%s)} # nothing there yet: nothing has stalled
		((${newest%.*} + quiet <= $(date +%s))) || continue
		n=$((n + 1))
		vm_log "nothing under $results changed for $quiet s: vCPUs to stall-vcpus-$n.txt"
		vm_vcpu_dump "$ctl/monitor.sock" "$results/stall-vcpus-$n.txt" "$ctl/kallsyms"
	done
}

log=$results/console.log
t_qemu=$(date +%s.%N)
if ((shell)); then
	vm_log "booting ${rig[KVER]} (interactive; Ctrl-A X quits QEMU)"
	set +e
	"${qemu[@]}" -nographic 2>&1 | tee "$log"
	qrc=${PIPESTATUS[0]}
	set -e
else
	vm_log "booting ${rig[KVER]} (timeout ${timeout} s)"
	monitor=(-monitor none) watch=''
	if ((vcpu_dump_after)); then
		monitor=(-monitor "unix:$ctl/monitor.sock,server=on,wait=off")
		vcpu_watch "$vcpu_dump_after" &
		watch=$!
	fi
	# Prefix each console line with seconds since run.sh started.
	set +e
	timeout -k 10 "$timeout" "${qemu[@]}" -display none "${monitor[@]}" -serial stdio </dev/null 2>&1 |
		T0=$t0 perl -MTime::HiRes=time -ne \
			'BEGIN { $| = 1 } s/\r//g; printf("[%7.2f] %s", time() - $ENV{T0}, $_)' |
		tee "$log"
	qrc=${PIPESTATUS[0]}
	[[ -n $watch ]] && kill "$watch" 2>/dev/null && wait "$watch" 2>/dev/null
	set -e
fi
wall=$(echo "$(date +%s.%N) - $t0" | bc)

rc=
[[ -r $ctl/rc ]] && rc=$(cat "$ctl/rc")
crash=$(grep -m1 -E 'Kernel panic|Oops:|BUG:|general protection fault' "$log" || true)
if [[ $qrc == 124 || $qrc == 137 ]] && ((!shell)); then
	status=timeout
	msg="timed out after $timeout s (--timeout)"
	rc=$AXL_VM_EXIT_TIMEOUT
elif [[ -n $crash ]]; then
	status=crash
	crash=$(sed -E 's/^(\[ *[0-9.]+\] *)+//' <<<"$crash")
	# Where the kernel was (its RIP/pc, not a user one), and the last thing user space printed
	# before the first crash line (console lines without a kernel timestamp).
	crash_site=$(grep -m1 -oE '(RIP: 0010:|pc : )[^ ]+' "$log" | sed -E 's/^(RIP: 0010:|pc : )//' || true)
	first=$(grep -m1 -nE 'Kernel panic|Oops:|BUG:|general protection fault' "$log" | cut -d: -f1)
	crash_during=$(head -n "$((first - 1))" "$log" | grep -vE '^\[ *[0-9.]+\] \[ *[0-9.]+\]' |
		sed -E 's/^\[ *[0-9.]+\] //' | grep -vE '^[[:space:]]*$' | tail -n 1 | cut -c1-160 || true)
	msg="guest kernel crashed: $crash${crash_site:+ at $crash_site}${crash_during:+ (last output: $crash_during)}"
	rc=$AXL_VM_EXIT_CRASH
elif [[ -z $rc ]]; then
	status=crash
	msg="guest stopped without reporting an exit code (qemu rc $qrc)"
	rc=$AXL_VM_EXIT_CRASH
elif [[ -e $ctl/cmd && ! -e $ctl/started ]]; then
	status=setup_failed
	msg="guest setup failed before the command ran: $(cat "$ctl/message" 2>/dev/null)"
elif [[ -e $ctl/cmd ]]; then
	status="done"
	msg="guest command exited with $rc"
else
	status="done"
	msg="guest powered off (no command)"
fi
# Host preparation (ensure.sh, builds) and boot to the command, separately.
prep=$(echo "$t_qemu - $t0" | bc)
boot=$(sed -nE 's/^\[ *([0-9.]+)\] axl-vm: running command.*/\1/p' "$log" | head -n 1)
[[ -n $boot ]] && boot=$(echo "$boot - $prep" | bc)
{
	printf '%s=%s\n' status "$status" exit_code "$rc" kernel "${rig[KVER]}" \
		wall_s "$wall" prep_s "$prep" boot_to_command_s "${boot:-}" qemu_rc "$qrc" \
		tcg_thread "$tcg_thread"
	if [[ $status == crash ]]; then
		printf '%s=%s\n' crash "$crash" crash_site "${crash_site:-}" crash_during "${crash_during:-}"
	fi
} >"$results/run.env"
[[ $results == "$ctl/results" ]] && log="(none: no --results)"
shown=n/a
[[ -n $boot ]] && shown="$(printf %.1f "$boot") s"
vm_log "$msg (wall $(printf %.1f "$wall") s: host prep $(printf %.1f "$prep") s, boot to command $shown; console log $log)"
[[ -s $results/summary.txt ]] && cat "$results/summary.txt"
exit "$rc"
