#!/usr/bin/env bash
# The rig's self-test: does the guest survive live kernel text patching?
# Boots the VM without axl (no module, no deno) and runs
# tests/rig/text-patching-stress.sh, which switches function_graph on and off
# and toggles trace events while the other vCPU keeps running kernel code.
#
#   scripts/vm/stress.sh [--seconds N] [--toggles T] [--runs K]
#                        [--tcg-thread single|multi|both] [--results DIR]
#
#   --seconds N      how long each guest toggles (default 60)
#   --toggles T      stop a guest after T toggles, even before N seconds
#   --runs K         guests per TCG mode (default 1)
#   --tcg-thread M   the rig's mode to test: single (the default, what every
#                    rig run uses), multi (the mode that crashed), or both
#   --results DIR    keep each guest's console log and run.env under DIR
#
# Prints one line per guest (mode, toggles survived, seconds, outcome with the
# crash site) and ends with "ok | N passed | M failed" counting the guests
# of mode single: a single-mode guest that dies fails the test. Guests of mode
# multi are a measurement of the failure the rig avoids; they never fail it.
# Exit status: 0 when every single-mode guest survived, 1 otherwise, 3 when
# the rig could not run.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$here/lib.sh"

seconds=60 toggles=0 runs=1 modes=(single) results=''
die() {
	echo "stress: $*" >&2
	exit 3
}
while (($#)); do
	case $1 in
	--seconds) seconds=${2:-} && shift ;;
	--runs) runs=${2:-} && shift ;;
	--toggles) toggles=${2:-} && shift ;;
	--tcg-thread)
		case ${2:-} in
		single | multi) modes=("$2") ;;
		both) modes=(multi single) ;;
		*) die "--tcg-thread wants single, multi or both, got '${2:-}'" ;;
		esac
		shift
		;;
	--results) results=${2:-} && shift ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" && exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "--seconds wants whole seconds, got '$seconds'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a count, got '$runs'"
[[ $toggles =~ ^[0-9]+$ ]] || die "--toggles wants a count, got '$toggles'"
if [[ -z $results ]]; then
	results=$(mktemp -d "${TMPDIR:-/tmp}/axl-stress.XXXXXX")
	trap 'rm -rf "$results"' EXIT
fi
mkdir -p "$results" || die "cannot create --results $results"

passed=0 failed=0
for mode in "${modes[@]}"; do
	for ((i = 1; i <= runs; i++)); do
		out=$results/$mode-$i
		bash "$here/run.sh" --no-module --no-deno --no-build-tests --tcg-thread "$mode" \
			--timeout $((seconds + 180)) --results "$out" -- \
			bash "$repo/tests/rig/text-patching-stress.sh" "$seconds" "$toggles" >"$results/$mode-$i.log" 2>&1
		rc=$?
		last=$(grep -oE 'stress: (done )?toggles=[0-9]+ elapsed=[0-9]+' "$out/console.log" 2>/dev/null | tail -n 1)
		survived=$(sed -nE 's/.*toggles=([0-9]+).*/\1/p' <<<"$last")
		elapsed=$(sed -nE 's/.*elapsed=([0-9]+).*/\1/p' <<<"$last")
		case $rc in
		0) outcome=survived ;;
		125)
			outcome="guest kernel died: $(vm_crash_text "$out")"
			;;
		3)
			tail -n 5 "$results/$mode-$i.log" >&2
			die "the rig could not run (see above)"
			;;
		*) outcome="exit $rc ($(tail -n 1 "$results/$mode-$i.log"))" ;;
		esac
		printf 'stress: tcg thread=%-6s run %d: %4s toggles in %4s s: %s\n' \
			"$mode" "$i" "${survived:-0}" "${elapsed:-0}" "$outcome"
		if [[ $mode == single ]]; then
			if ((rc == 0)); then passed=$((passed + 1)); else failed=$((failed + 1)); fi
		fi
	done
done
status=ok
((failed)) && status=FAILED
echo "$status | $passed passed | $failed failed"
((failed == 0))
