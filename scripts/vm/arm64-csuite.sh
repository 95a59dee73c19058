#!/usr/bin/env bash
# The C device suite on the Jetson-shaped target: arm64 Linux 5.15 under
# qemu-system-aarch64 (virt, GICv3, SMMUv3, the edu device behind the SMMU),
# with axl.ko cross-built against the kernel kit's headers. The guest is a
# busybox initramfs (Debian's arm64 busybox-static): it loads axl.ko, runs
# the C test programs cross-built statically from tests/device/c, and hands
# back their TAP output and the kernel log. The kernel, axl.ko, busybox and
# the device tree (linux,cma) are those of scripts/vm/run.sh --arch aarch64
# (scripts/vm/ensure.sh builds and caches them); only the guest differs. With --debug-kernel the kernel
# has lockdep, KASAN, DMA_API_DEBUG and atomic-sleep checks: any splat fails.
#
#   scripts/vm/arm64-csuite.sh [--debug-kernel] [--kernel-kit DIR] [--results DIR]
#                              [--timeout S] [--module-param K=V]... [--only PROG]...
#
#   --kernel-kit DIR   the kits' directory (default: ../shared/kernels beside
#                      the repo); see docs/kernel-kits.md
#   --debug-kernel     boot linux-5.15-arm64-debug instead of linux-5.15-arm64
#   --results DIR      keep TAP files, console.log and dmesg.txt (default: temp)
#   --timeout S        whole-run limit (default 1500)
#   --module-param K=V pass a parameter to axl.ko (repeatable)
#   --only PROG        run only this test program (repeatable)
#   --tcg-thread MODE  single (default) or multi; see scripts/vm/README.md
#
# Ends with "ok | N passed | M failed | K skipped (...)" like run-suite.sh.
#   AXL_VM_MODULE_SRC  module source directory (default: the repo's kernel/)
#
# Exit status: 0 all passed, 1 a test failed or the kernel log has a splat,
# 3 could not run (missing kit or packages, build failure), 124 timeout,
# 125 the guest kernel crashed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$here/lib.sh"

kits=$repo/../shared/kernels debug=0 results='' timeout=1500 params=() only=()
tcg_thread=${AXL_VM_TCG_THREAD:-single}
need() { (($# > 1)) || vm_die "option $1 needs a value (see --help)"; }
while (($#)); do
	case $1 in
	--kernel-kit) need "$@" && kits=$2 && shift ;;
	--debug-kernel) debug=1 ;;
	--results) need "$@" && results=$2 && shift ;;
	--timeout) need "$@" && timeout=$2 && shift ;;
	--module-param) need "$@" && params+=("$2") && shift ;;
	--only) need "$@" && only+=("$2") && shift ;;
	--tcg-thread) need "$@" && tcg_thread=$2 && shift ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" && exit 0 ;;
	*) vm_die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[[ $timeout =~ ^[1-9][0-9]*$ ]] || vm_die "--timeout wants whole seconds, got '$timeout'"
[[ $tcg_thread == single || $tcg_thread == multi ]] || vm_die "--tcg-thread wants single or multi"

kit=$(vm_arm64_kit "$kits" "$debug") || exit
flavour=$(basename "$kit")

mem=1G
((debug)) && mem=2G # KASAN's shadow memory
declare -A rig=()
while IFS='=' read -r k v; do rig[$k]=$v; done < <("$here/ensure.sh" --arch aarch64 \
	--kernel-kit "$kit" --mem "$mem" --smp 2 || echo "FAILED=1")
[[ -z ${rig[FAILED]:-} ]] || exit "$AXL_VM_EXIT_CANNOT_RUN"
release=${rig[KVER]}
vm_apt_install cpio gzip socat

build=$(mktemp -d "${TMPDIR:-/tmp}/axl-arm64.XXXXXX")
trap 'rm -rf "$build"' EXIT
# The C test programs, static so the initramfs needs no libc.
tests=$build/tests
make -s -C "$repo/tests/device/c" CC=aarch64-linux-gnu-gcc LDFLAGS=-static OUTPUT="$tests" >&2 ||
	vm_die "cross-building tests/device/c failed (see above)"
if ((${#only[@]})); then
	for t in "$tests"/*; do
		[[ " ${only[*]} " == *" ${t##*/} "* ]] || rm -f "$t"
	done
	[[ -n $(ls -A "$tests") ]] || vm_die "--only matched no test program (have: $(ls "$repo/tests/device/c"/*.c | xargs -n1 basename | sed 's/\.c$//' | tr '\n' ' '))"
fi

root=$build/root
mkdir -p "$root"/{bin,proc,sys,dev,tmp,results,tests}
cp "${rig[ROOT]}/bin/busybox" "$root/bin/busybox"
cp "$here/arm64/init" "$root/init"
cp "${rig[AXL_KO]}" "$root/axl.ko"
[[ -z ${rig[NVMAP_SIM_KO]:-} ]] || cp "${rig[NVMAP_SIM_KO]}" "$root/nvmap_sim.ko"
cp "$tests"/* "$root/tests/"
vm_axl_params "${params[@]}" >"$root/axl.params"
echo 600 >"$root/timeout"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$build/initramfs.gz"

if [[ -z $results ]]; then
	results=$build/results
fi
mkdir -p "$results" && results=$(cd "$results" && pwd)
find "$results" -mindepth 1 -delete

# A debug-kernel guest has stopped making progress with nothing in its log (the
# vCPUs busy, no test's timeout firing: docs/rig.md). Before the run's time is up,
# ask QEMU where each vCPU is and name the PCs from the guest's kallsyms.
monitor=$build/monitor.sock
# The deadline is by the clock: counting sleeps ran past the timeout on a loaded host (each
# `sleep 1` a little longer), and a stalled guest was killed with no dump.
vcpu_watch() {
	local deadline=$(($(date +%s) + (timeout > 60 ? timeout - 30 : timeout / 2)))
	while (($(date +%s) < deadline)); do
		sleep 1
		[[ -e $results/finished ]] && return
	done
	vm_vcpu_dump "$monitor" "$results/stall-vcpus.txt" "$results/kallsyms"
}

log=$results/console.log
vm_log "booting $release (${flavour#linux-5.15-}; timeout $timeout s)"
t0=$(date +%s)
vcpu_watch >/dev/null 2>&1 &
watch=$!
set +e
# shellcheck disable=SC2054 # commas inside QEMU option values
timeout -k 10 "$timeout" qemu-system-aarch64 "${vm_arm64_machine[@]}" -dtb "${rig[DTB]}" \
	-accel "tcg,thread=$tcg_thread" -m "$mem" -smp 2 -no-reboot -nic none \
	-display none -monitor "unix:$monitor,server=on,wait=off" -serial stdio -device edu \
	-kernel "$kit/Image" -initrd "$build/initramfs.gz" \
	-append "console=ttyAMA0 panic=-1 oops=panic quiet loglevel=4 log_buf_len=64M" \
	-virtfs "local,path=$results,mount_tag=axlresults,security_model=none" \
	</dev/null >"$log" 2>&1
qrc=$?
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
set -e
wall=$(($(date +%s) - t0))

crash=$(grep -m1 -E 'Kernel panic|Oops|BUG:|Internal error' "$log" || true)
if ((qrc == 124 || qrc == 137)); then
	vm_log "timed out after $timeout s (console log $log)"
	[[ -s $results/stall-vcpus.txt ]] && vm_log "where the vCPUs were: $results/stall-vcpus.txt" &&
		grep '^PC ' "$results/stall-vcpus.txt" >&2
	exit "$AXL_VM_EXIT_TIMEOUT"
elif [[ ! -e $results/finished ]]; then
	vm_log "guest kernel crashed: ${crash:-stopped without finishing} (console log $log)"
	exit "$AXL_VM_EXIT_CRASH"
elif [[ -e $results/insmod.failed ]]; then
	grep -iE 'axl|module' "$results/dmesg.txt" | tail -n 20 >&2 || true
	vm_die "insmod axl.ko failed on $release (kernel log above)"
fi

# shellcheck source=tests/device/tap_result.sh
source "$repo/tests/device/tap_result.sh"
passed=0 failed=0 skipped=0 problems=()
for tap in "$results"/*.tap; do
	name=$(basename "$tap" .tap)
	rc=$(cat "$results/$name.rc" 2>/dev/null || echo 255)
	tap_result "$name" "$rc" "$tap"
	vm_log "$name: $p passed, $f failed, $s skipped (exit $rc)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
# Lockdep, KASAN, DMA-API debugging (a WARNING) and sleeping-in-atomic reports fail
# the run, except the known benign ones (listed with their reasons there).
# shellcheck source=tests/device/kernel_splats.sh
source "$repo/tests/device/kernel_splats.sh"
kernel_splats "$results/dmesg.txt"
# (head reads a here-string: a pipe from printf would die of SIGPIPE under -e)
if [[ -n $ignored ]]; then
	echo "known benign (not counted): $(grep -c . <<<"$ignored") line(s), the first:" >&2
	head -n 10 <<<"$ignored" >&2
fi
dmesg_part="dmesg clean"
if [[ -n $splats ]]; then
	head -n 40 <<<"$splats" >&2
	problems+=("kernel splats in dmesg")
	failed=$((failed + 1))
	dmesg_part="dmesg has splats"
fi
((${#problems[@]})) && vm_log "problems: $(IFS=';' && echo "${problems[*]}")"
status=ok
((failed)) && status=FAILED
echo "$status | $passed passed | $failed failed | $skipped skipped ($release, C only, $dmesg_part, wall ${wall} s)"
((failed == 0))
