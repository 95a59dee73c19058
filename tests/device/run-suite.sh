#!/usr/bin/env bash
# The device suite: runs on the device (the VM rig's guest, or a Jetson) with
# axl.ko loaded, from the repo root:
#
#   scripts/vm/run.sh --results build/vm-results -- bash tests/device/run-suite.sh
#
# 1. every executable in build/device-tests/ (kselftest-style TAP programs built
#    from tests/device/c/ on the host), in name order;
# 2. deno test on tests/device/*.test.ts;
# 3. the kernel log: any WARNING/BUG/Oops/KASAN/UBSAN splat fails the suite.
#
# Skips are reported as skips, never counted as passes. Ends with one line
#   ok | N passed | M failed | K skipped (C a/b, deno c/d, dmesg clean)
# (FAILED instead of ok when anything failed), also written to
# $AXL_RESULTS/summary.txt, and exits 1 when anything failed.
#
#   AXL_DEVICE_TESTS   directory of test programs (default build/device-tests)
#   AXL_RESULTS        where logs go (default build/device-results)
#   AXL_TEST_TIMEOUT   seconds per C test program (default 300)
#   AXL_STALL_DUMP_S   when nothing under AXL_RESULTS changes for this long, write a
#                      snapshot of the guest there (stall-N.txt; tests/device/stall_watch.sh)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo" || exit 3
bins=${AXL_DEVICE_TESTS:-$repo/build/device-tests}
results=${AXL_RESULTS:-$repo/build/device-results}
per_test_timeout=${AXL_TEST_TIMEOUT:-300}
export NO_COLOR=1 RUST_BACKTRACE=0
mkdir -p "$results/device-tests" || {
	echo "run-suite: cannot create $results (set AXL_RESULTS to a writable directory)" >&2
	exit 3
}

passed=0 failed=0 skipped=0
c_pass=0 c_total=0 deno_part="deno none" dmesg_part="dmesg clean"
problems=()

say() { printf 'run-suite: %s\n' "$*"; }

# shellcheck source=tests/device/tap_result.sh
source "$repo/tests/device/tap_result.sh"

# run_c_test PROGRAM — run one TAP program and add its results to the totals.
run_c_test() {
	local prog=$1 name log rc p f s
	name=$(basename "$prog")
	log=$results/device-tests/$name.tap
	say "== $name"
	timeout -k 10 "$per_test_timeout" "$prog" 2>&1 </dev/null | tee "$log"
	rc=${PIPESTATUS[0]}
	tap_result "$name" "$rc" "$log"
	say "$name: $p passed, $f failed, $s skipped (exit $rc)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	c_pass=$((c_pass + p)) c_total=$((c_total + p + f))
}

# A run that may hang somewhere slow (the arm64 debug kernel) leaves a snapshot of the guest
# when nothing under $results has changed for AXL_STALL_DUMP_S seconds.
if [[ ${AXL_STALL_DUMP_S:-} =~ ^[1-9][0-9]*$ ]]; then
	# shellcheck source=tests/device/stall_watch.sh
	source "$repo/tests/device/stall_watch.sh"
	stall_watch "$results" "$AXL_STALL_DUMP_S" &
	watchdog=$!
	trap 'kill "$watchdog" 2>/dev/null' EXIT
	say "stall watchdog: a snapshot after $AXL_STALL_DUMP_S s without a change under $results"
fi

# 1. C test programs.
mapfile -t progs < <(find "$bins" -maxdepth 1 -type f -perm -u+x 2>/dev/null | LC_ALL=C sort)
sources=$(find tests/device/c -name '*.c' 2>/dev/null | head -n 1)
if ((${#progs[@]})); then
	for prog in "${progs[@]}"; do run_c_test "$prog"; done
elif [[ -n $sources ]]; then
	say "tests/device/c has sources but $bins holds no test programs: build them on the host first (scripts/vm/run.sh does unless --no-build-tests)"
	problems+=("C device tests not built")
	failed=$((failed + 1))
else
	say "no C device tests (tests/device/c/ has no sources yet)"
fi

# 2. Deno device tests.
mapfile -t deno_tests < <(find tests/device -maxdepth 1 -name '*.test.ts' 2>/dev/null | LC_ALL=C sort)
if ((${#deno_tests[@]})); then
	if ! command -v deno >/dev/null; then
		say "deno is not on PATH (the VM rig provides it unless --no-deno)"
		problems+=("deno missing")
		failed=$((failed + 1))
	else
		say "== deno test ${deno_tests[*]}"
		deno test --allow-all "${deno_tests[@]}" 2>&1 </dev/null | tee "$results/deno-test.log"
		rc=${PIPESTATUS[0]}
		line=$(grep -E '^(ok|FAILED) \| [0-9]+ passed' "$results/deno-test.log" | tail -n 1)
		if [[ -n $line ]]; then
			p=$(sed -E 's/.*\| ([0-9]+) passed.*/\1/' <<<"$line")
			f=$(sed -E 's/.*\| ([0-9]+) failed.*/\1/' <<<"$line")
			i=$(sed -nE 's/.*\| ([0-9]+) ignored.*/\1/p' <<<"$line")
			passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${i:-0}))
			deno_part="deno $p/$((p + f))"
			((f)) && problems+=("deno: $f failed")
		fi
		if ((rc != 0)) && [[ -z $line || $f == 0 ]]; then
			problems+=("deno test exited $rc")
			failed=$((failed + 1))
			deno_part="deno broken (exit $rc)"
		fi
	fi
else
	say "no deno device tests (tests/device/*.test.ts) yet"
fi

# 3. The kernel log must be free of splats, from boot to now; the known benign
# ones are listed with their reasons in kernel_splats.sh, shown, and not counted.
# shellcheck source=tests/device/kernel_splats.sh
source "$repo/tests/device/kernel_splats.sh"
dmesg >"$results/dmesg-suite.txt" 2>&1 || say "cannot read the kernel log (not root?)"
kernel_splats "$results/dmesg-suite.txt"
if ! kernel_log_from_boot "$results/dmesg-suite.txt"; then
	say "$log_gap"
	problems+=("kernel log incomplete")
	failed=$((failed + 1))
	dmesg_part="dmesg incomplete"
fi
if [[ -n $ignored ]]; then
	say "kernel log lines known to be benign (not counted): $(grep -c . <<<"$ignored"), the first:"
	head -n 10 <<<"$ignored"
fi
if [[ -n $splats ]]; then
	say "kernel log has splats:"
	head -n 40 <<<"$splats"
	problems+=("kernel splats in dmesg")
	failed=$((failed + 1))
	dmesg_part="dmesg has splats"
fi

((${#problems[@]})) && say "problems: $(
	IFS=';'
	echo "${problems[*]}"
)"
status=ok
((failed)) && status=FAILED
summary="$status | $passed passed | $failed failed | $skipped skipped (C $c_pass/$c_total, $deno_part, $dmesg_part)"
echo "$summary" >"$results/summary.txt"
echo "$summary"
((failed == 0))
