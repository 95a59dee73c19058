#!/usr/bin/env bash
# deno task verify [verify options]: prove the zero-copy path.
#
# It runs `axl verify` right here when there is something to verify here: an NPU node
# (our /dev/axl, e.g. inside the VM rig, or a Metis node: Axelera's /dev/metis-* or our
# simulator's /dev/axl-metis-*), or a workload that is not the builtin one (--config,
# --pid, a command after --) or saved artifacts to judge (--replay). Otherwise it boots
# the VM rig and runs the builtin workload against the simulated Metis (metis-sim)
# there, and says so first.
# Artifacts land in artifacts/verify, or in --artifacts DIR (relative to the directory
# the command was started from), on the host in both cases.
#
# Options are checked on the host first, by verify's own parser (tasks/verify_check.ts):
# a bad one is refused before anything is installed, built or booted.
# Exit codes: those of `axl verify` (0 pass, 1 fail, 2 inconclusive/skip, 3 could not
# run); a VM rig that cannot boot or times out is 3.
#
# Test seam (tests/host/tasks/verify_script.test.ts), for the VM path only: with
# AXL_VERIFY_RIG set, that command runs in place of setup, the shim build and
# scripts/vm/run.sh, with run.sh's arguments, and the rig's results directory is
# AXL_VERIFY_RIG_RESULTS instead of artifacts/verify-vm.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# deno task runs in the project root and says where it was started in INIT_CWD.
caller=${INIT_CWD:-$PWD}
export INIT_CWD=$caller # tasks/axl.ts resolves the paths given against it
cd "$root" || exit 3
node=${AXL_DEVICE:-/dev/axl}

for arg in "$@"; do
	if [[ $arg == -h || $arg == --help ]]; then
		exec deno run --allow-all tasks/axl.ts verify --help
	fi
done

# --artifacts DIR is the caller's path; the VM guest cannot write the host, so
# there the option is taken out and the directory filled after the run.
artifacts=artifacts/verify given=() args=() here= shown=
while (($#)); do
	case $1 in
	--replay | --replay=* | --pid | --pid=* | --config | --config=*) here=$1 && args+=("$1") ;;
	--artifacts)
		(($# > 1)) || {
			echo "axl verify: --artifacts needs a directory" >&2
			exit 3
		}
		artifacts=$2 given=(--artifacts) shown=$2
		shift
		;;
	--artifacts=*) artifacts=${1#--artifacts=} given=(--artifacts) shown=${1#--artifacts=} ;;
	--) here=$1 && args+=("$@") && break ;;
	*) args+=("$1") ;;
	esac
	shift
done
[[ $artifacts == /* ]] || artifacts=$caller/$artifacts
# Here, `axl verify` picks its own default (a replay writes beside the directory it reads).
((${#given[@]})) && given+=("$artifacts")

metis_nodes=(/dev/metis-* /dev/axl-metis-*)
[[ -e ${metis_nodes[0]} || -e ${metis_nodes[1]} ]] && here=${here:-a Metis node}
if [[ -e $node || -n $here ]]; then
	exec deno run --allow-all tasks/axl.ts verify "${given[@]}" "${args[@]}"
fi

# Refuse bad options here, with verify's own parser and message, before anything is
# installed, built or booted (the guest would parse them again, minutes later).
deno run --no-check --allow-read --allow-env tasks/verify_check.ts --artifacts "$artifacts" "${args[@]}" ||
	exit
# --json: stdout is result.json alone. The rig's console (the guest's lines, stdout and
# stderr merged) and these notes go to stderr; result.json is printed from the host copy.
# The guest runs verify without --json: it prints its summary (to the console, so to
# stderr here) rather than the document a second time.
json=0 guest=()
for arg in "${args[@]}"; do
	if [[ $arg == --json ]]; then json=1; else guest+=("$arg"); fi
done
if ((json)); then exec 9>&1 1>&2; fi
if [[ $(uname -m) != x86_64 ]]; then
	echo "axl verify: no NPU device ($node is missing) and the VM rig needs an x86_64 host;" \
		"load the driver (modprobe axl / the metis driver) or set AXL_DEVICE" >&2
	exit 3
fi
echo "axl verify: no NPU device on this machine ($node is missing): running the builtin" \
	"workload against the simulated Metis (metis-sim) in the VM rig (Debian 6.12 under QEMU)"
if [[ -n ${AXL_VERIFY_RIG:-} ]]; then
	rig=("$AXL_VERIFY_RIG")
	vmdir=${AXL_VERIFY_RIG_RESULTS:-}
	[[ -n $vmdir ]] || {
		echo "axl verify: AXL_VERIFY_RIG needs AXL_VERIFY_RIG_RESULTS" >&2
		exit 3
	}
else
	bash scripts/setup.sh --build || exit 3
	bash ffi/build.sh --native >/dev/null || exit 3
	rig=(bash scripts/vm/run.sh)
	vmdir=$root/artifacts/verify-vm
	mkdir -p "$root/artifacts" || exit 3
fi
# The guest writes its artifacts into $AXL_RESULTS; the rig copies them back, and the
# guest's last line names the directory they land in here, as the user wrote it.
"${rig[@]}" --vivid --results "$vmdir" --env "AXL_VERIFY_ARTIFACTS_AS=${shown:-artifacts/verify}" -- \
	bash -c 'deno run --no-check --allow-all tasks/axl.ts verify --artifacts "$AXL_RESULTS/verify" "$@"' \
	verify "${guest[@]}"
rc=$?
if [[ -d $vmdir/verify ]]; then
	# Into the directory as the command itself would write it: same-named
	# files are replaced, nothing else there is touched.
	if mkdir -p "$artifacts" && cp -a "$vmdir/verify/." "$artifacts/" && rm -rf "$vmdir/verify"; then
		echo "axl verify: artifacts in $artifacts (VM console log: $vmdir/console.log)"
	else
		echo "axl verify: cannot move the artifacts to $artifacts; they are in $vmdir/verify" >&2
		((rc == 0)) && rc=3
	fi
fi
if ((json)) && ((rc <= 2)); then
	if [[ -r $artifacts/result.json ]]; then
		cat "$artifacts/result.json" >&9
	else
		echo "axl verify: no result.json in $artifacts to print for --json" >&2
		rc=3
	fi
fi
case $rc in
0 | 1 | 2 | 3) exit $rc ;;
*)
	echo "axl verify: the VM rig failed (exit $rc); see $vmdir/console.log" >&2
	exit 3
	;;
esac
