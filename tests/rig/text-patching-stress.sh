#!/usr/bin/env bash
# Guest half of the rig's text-patching stress test (scripts/vm/stress.sh).
# Needs nothing of axl: switches the top-level tracer between function_graph
# and nop and toggles the dma_fence events (each toggle also flips static keys)
# while a loop of system calls keeps the other vCPU running through patched
# function entries. Each switch makes the kernel rewrite the entry of every
# traceable function with int3-based live patching.
#
#   bash tests/rig/text-patching-stress.sh SECONDS [TOGGLES]
#
# Stops when SECONDS have passed or after TOGGLES toggles, whichever is first.
# Prints "stress: toggles=N elapsed=S" after every toggle, so the host can
# tell how far a guest that died got, and "stress: done toggles=N elapsed=S"
# at the end. Exit 0 when the time ran out with the guest alive, 3 when
# tracefs is missing.
set -uo pipefail
seconds=${1:?usage: text-patching-stress.sh SECONDS [TOGGLES]}
max_toggles=${2:-0}
t=/sys/kernel/tracing
[[ -w $t/current_tracer ]] || {
	echo "stress: $t/current_tracer is not writable (tracefs not mounted, or not root)" >&2
	exit 3
}
grep -qw function_graph "$t/available_tracers" || {
	echo "stress: the kernel has no function_graph tracer" >&2
	exit 3
}

# Keep every other CPU busy in and out of the kernel.
busy=()
for ((cpu = 1; cpu < $(nproc); cpu++)); do
	(while :; do read -r _ </proc/uptime; done) &
	busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null; echo nop >"$t/current_tracer"; echo 0 >"$t/events/dma_fence/enable"' EXIT

start=$SECONDS toggles=0
while ((SECONDS - start < seconds && (max_toggles == 0 || toggles < max_toggles))); do
	echo function_graph >"$t/current_tracer"
	echo 1 >"$t/events/dma_fence/enable"
	echo nop >"$t/current_tracer"
	echo 0 >"$t/events/dma_fence/enable"
	toggles=$((toggles + 1))
	echo "stress: toggles=$toggles elapsed=$((SECONDS - start))"
done
echo "stress: done toggles=$toggles elapsed=$((SECONDS - start))"
