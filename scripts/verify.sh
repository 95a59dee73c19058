#!/usr/bin/env bash
# deno task verify [verify options]: prove the zero-copy path.
#
# With an NPU device node present (a Jetson with the metis/axl driver, or inside the
# VM rig) it runs `axl verify` right here. Without one it boots the VM rig and runs the
# builtin workload against the simulated Metis (metis-sim) there, and says so first.
# Artifacts land in artifacts/verify (on the host in both cases).
#
# Exit codes: those of `axl verify` (0 pass, 1 fail, 2 inconclusive/skip, 3 could not
# run); a VM rig that cannot boot or times out is 3.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 3
node=${AXL_DEVICE:-/dev/axl}

for arg in "$@"; do
	if [[ $arg == -h || $arg == --help ]]; then
		exec deno run --allow-all tasks/axl.ts verify --help
	fi
done

if [[ -e $node ]]; then
	exec deno run --allow-all tasks/axl.ts verify "$@"
fi

if [[ $(uname -m) != x86_64 ]]; then
	echo "axl verify: no NPU device ($node is missing) and the VM rig needs an x86_64 host;" \
		"load the driver (modprobe axl / the metis driver) or set AXL_DEVICE" >&2
	exit 3
fi
echo "axl verify: no NPU device on this machine ($node is missing): running the builtin" \
	"workload against the simulated Metis (metis-sim) in the VM rig (Debian 6.12 under QEMU)"
bash scripts/setup.sh --build || exit 3
bash ffi/build.sh --native >/dev/null || exit 3
rm -rf artifacts/verify
mkdir -p artifacts
# The guest writes its artifacts into $AXL_RESULTS; the rig copies them back.
bash scripts/vm/run.sh --vivid --results artifacts/verify-vm -- \
	bash -c 'deno run --no-check --allow-all tasks/axl.ts verify --artifacts "$AXL_RESULTS/verify" "$@"' \
	verify "$@"
rc=$?
if [[ -d artifacts/verify-vm/verify ]]; then
	mv artifacts/verify-vm/verify artifacts/verify
	echo "axl verify: artifacts in artifacts/verify (VM console log: artifacts/verify-vm/console.log)"
fi
case $rc in
0 | 1 | 2 | 3) exit $rc ;;
*)
	echo "axl verify: the VM rig failed (exit $rc); see artifacts/verify-vm/console.log" >&2
	exit 3
	;;
esac
