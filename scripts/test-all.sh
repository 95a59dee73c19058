#!/usr/bin/env bash
# The whole test suite: host tests (x86_64, then aarch64 under qemu-user), the Argus
# compile check (when the Jetson Multimedia API headers are there), the module compile test
# against 6.1 and 6.12 headers, the rig self-test (the guest survives live kernel text
# patching), the device suite (C and Deno) on the arm64 5.15 guest, the C suite on its
# lockdep/KASAN kernel and the host tests qemu-user cannot run (when
# ../shared/kernels holds the kits), then the device suite in the x86_64 VM rig.
# Ends with one line adding up every part: "total: N passed, M failed".
#
#   scripts/test-all.sh [--host-only]   (--host-only: x86_64 host tests only)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=scripts/vm/lib.sh
source scripts/vm/lib.sh
export NO_COLOR=1 RUST_BACKTRACE=0

passed=0 failed=0 broken=() not_run=()
declare -A rig_results=([vm]=build/vm-results [arm64]=build/vm-arm64-results
	[arm64-host]=build/vm-arm64-host-results)
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# rig_crash NAME RC — for a rig part that exited 125: that the guest kernel died,
# where, and what ran last (from the rig's run.env), so a dead guest is never
# read as an axl test failure.
rig_crash() {
	local dir=${rig_results[$1]:-}
	[[ -n $dir ]] && (($2 == 125)) && [[ -r $dir/run.env ]] || return 0
	printf ': the guest kernel died, not a test: %s; console log %s/console.log' \
		"$(vm_crash_text "$dir")" "$dir"
}

# Runs one part, echoing its output, and adds its deno summary line to the totals.
part() {
	local name=$1
	shift
	echo "== $name: $*"
	"$@" 2>&1 | tee "$logdir/$name.log"
	local rc=${PIPESTATUS[0]}
	local line
	# A summary printed inside a rig guest carries the console's "[ uptime ]" prefix.
	line=$(grep -E '^(\[ *[0-9.]+\] )?(ok|FAILED) \| [0-9]+ passed' "$logdir/$name.log" | tail -1)
	if [[ -n $line ]]; then
		passed=$((passed + $(sed -E 's/.*\| ([0-9]+) passed.*/\1/' <<<"$line")))
		failed=$((failed + $(sed -E 's/.*\| ([0-9]+) failed.*/\1/' <<<"$line")))
	fi
	# A part that ran no test did not pass (a filter that matched nothing, a runner that
	# printed no summary).
	if ((rc == 0)) && ! grep -qE '\| [1-9][0-9]* passed' <<<"$line"; then
		rc=1
		echo "test-all: part $name exited 0 but no test passed: ${line:-no summary line}"
		line='' # counted as one failure below
	fi
	if ((rc != 0)); then
		broken+=("$name (exit $rc$(rig_crash "$name" "$rc"))")
		# A part that died before its runner could count still counts as a failure.
		[[ -n $line ]] || failed=$((failed + 1))
	fi
}

scripts/setup.sh || exit 3
bash ffi/build.sh || exit 3

part host deno test --allow-all --parallel --doc tests/host lib ffi tasks mod.ts
# The Argus export compiled (not linked, not run) against the Jetson Multimedia API's public
# headers (libargus, EGLStream; L4T R35.3.1), which CI keeps beside the clone or names in
# AXL_MMAPI_INCLUDE; where they are not, it is reported as not run.
mmapi_include=${AXL_MMAPI_INCLUDE:-../shared/jetson-mmapi/include}
if [[ -r $mmapi_include/Argus/Argus.h && -r $mmapi_include/EGLStream/NV/ImageNativeBuffer.h ]]; then
	part argus env AXL_MMAPI_INCLUDE="$(cd "$mmapi_include" && pwd)" deno test --allow-all tests/jetson
else
	missing="argus: no Jetson Multimedia API headers in $mmapi_include (wanted Argus/ and"
	missing+=" EGLStream/ there; set AXL_MMAPI_INCLUDE=DIR)"
	not_run+=("$missing")
fi
if [[ ${1:-} != --host-only ]]; then
	part aarch64 bash scripts/test-aarch64.sh
	part kernel bash scripts/kernel-compile-test.sh
	# Two toggles: with a TCG thread per vCPU every guest died within its first two.
	part rig bash scripts/vm/stress.sh --seconds 180 --toggles 2
	# The Jetson-shaped target: arm64 5.15 with an SMMU and a linux,cma heap; the C suite
	# again on its lockdep/KASAN kernel (the Deno suite there: deno task test:vm:debug).
	kits=../shared/kernels
	if [[ -r $kits/linux-5.15-arm64/Image && -r $kits/linux-5.15-arm64-debug/Image ]]; then
		part arm64 bash scripts/vm/run.sh --arch aarch64 --vivid --timeout 1800 \
			--results "${rig_results[arm64]}" -- bash tests/device/run-suite.sh
		part arm64-debug bash scripts/vm/arm64-csuite.sh --debug-kernel
		# What qemu-user cannot run (spawning deno, ioctls on non-device fds), on arm64 for real.
		part arm64-host bash scripts/test-aarch64.sh --vm
	else
		missing="arm64, arm64-debug and arm64-host: no arm64 5.15 kernel kits in $kits (wanted"
		missing+=" $kits/linux-5.15-arm64/ and $kits/linux-5.15-arm64-debug/, each with Image,"
		missing+=" headers.tar.xz and RELEASE; put them there, or run a kit elsewhere with"
		missing+=" scripts/vm/run.sh --arch aarch64 --kernel-kit DIR)"
		not_run+=("$missing")
	fi
	# 3000 s: 1,368 s on a quiet machine with the Voyager pair, the pipeline-memory cases, the
	# SIGKILL cases and the user-script client; a machine busy with other guests has taken twice
	# as long. The whole run (49 minutes quiet) must stay inside CI's 90.
	part vm bash scripts/vm/run.sh --vivid --vkms --env AXL_EXPECT_VIVID=1 --timeout 3000 \
		--results "${rig_results[vm]}" -- bash tests/device/run-suite.sh
fi

((${#not_run[@]})) && echo "not run (neither passed nor failed): ${not_run[*]}"
((${#broken[@]})) && echo "failed parts: ${broken[*]}"
echo "total: $passed passed, $failed failed"
((${#broken[@]} == 0))
