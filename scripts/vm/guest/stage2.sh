#!/bin/bash
# Runs as PID 1 in the host root (read-only 9p) after the initramfs set it up.
# Loads the modules run.sh asked for, runs the command from the control
# share, stores its exit code and powers off. It must never exit: PID 1
# exiting panics the kernel. Helpers come from the RAM-backed busybox, since
# every exec of a host binary over 9p is slow under TCG.
#
# Control share (/run/axl/ctl, written by run.sh):
#   env        sourced first (AXL_REPO, AXL_KVER, --env values, ...)
#   modules    one line per Debian module to modprobe: NAME [PARAM=VALUE...]
#   axl.ko     our module (absent with --no-module); parameters in axl.params
#   vkms.ko    out-of-tree vkms (run.sh --vkms), insmodded after the modules
#   nvmap_sim.ko  the rig's nvmap stand-in (tests/rig/nvmap_sim), insmodded before axl.ko
#   cmd        bash script to run (absent with --shell and no command)
#   shell      present: interactive shell on the console afterwards
# Results: the exit code goes to ctl/rc and what happened to ctl/message
# (ctl/started marks that the command ran); dmesg to /run/axl/results.
ctl=/run/axl/ctl
results=/run/axl/results
bb=/run/axl/bin/busybox

log() { echo "axl-vm: $*"; }
uptime_s() {
	local up _
	read -r up _ </proc/uptime
	echo "$up"
}

power_off() {
	$bb sync
	$bb poweroff -f
	$bb reboot -f # -no-reboot makes QEMU exit on a reboot too
	$bb sleep 5
}

# finish RC MESSAGE — record the outcome for run.sh and power off.
finish() {
	$bb dmesg >"$results/dmesg.txt" 2>&1
	echo "$2" >"$ctl/message"
	echo "$1" >"$ctl/rc.tmp" && $bb mv "$ctl/rc.tmp" "$ctl/rc"
	log "$2 (uptime $(uptime_s) s)"
	if [[ -e $ctl/shell ]]; then
		log "interactive shell; 'exit' or Ctrl-D powers off"
		(cd "${AXL_REPO:-/}" && exec $bb setsid -c bash -i </dev/console >/dev/console 2>&1)
	fi
	power_off
}

log "stage2 at uptime $(uptime_s) s"
if [[ " $(</proc/cmdline) " == *" axl.trace=1 "* ]]; then
	PS4='+ $EPOCHREALTIME '
	set -x
fi
export PATH=/run/axl/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp/home TERM=${TERM:-linux} LANG=C.UTF-8
$bb mkdir -p "$HOME"
$bb hostname axl-vm

# shellcheck source=/dev/null
source "$ctl/env" || finish 3 "cannot read $ctl/env"

# DMA-API debugging (the arm64 debug kernel) prints the first error of any device and
# after that only counts them: vivid's benign report (tests/device/kernel_splats.sh) would
# hide every later one, axl's included. Print them all.
if [[ -w /sys/kernel/debug/dma-api/all_errors ]]; then
	echo 1 >/sys/kernel/debug/dma-api/all_errors
	log "DMA-API debugging prints every error"
fi

if [[ -e $ctl/modules ]]; then
	while read -r name params; do
		# shellcheck disable=SC2086 # params are separate words by design
		modprobe "$name" $params || finish 3 "modprobe $name $params failed (see the kernel log above)"
	done <"$ctl/modules"
fi

# Out-of-tree builds of drivers Debian does not ship (run.sh --vkms); their
# dependencies are in the modules list above.
if [[ -e $ctl/vkms.ko ]]; then
	insmod "$ctl/vkms.ko" || finish 3 "insmod vkms.ko failed (see the kernel log above)"
	log "loaded vkms.ko"
fi

# The rig's nvmap stand-in (/dev/dma_heap/nvmap-sim; run.sh --no-nvmap-sim leaves it out).
if [[ -e $ctl/nvmap_sim.ko ]]; then
	insmod "$ctl/nvmap_sim.ko" || finish 3 "insmod nvmap_sim.ko failed (see the kernel log above)"
	log "loaded nvmap_sim.ko"
fi

if [[ -e $ctl/axl.ko ]]; then
	for dep in $(modinfo -F depends "$ctl/axl.ko" | tr ',' ' '); do
		modprobe "$dep" || finish 3 "modprobe $dep (needed by axl.ko) failed"
	done
	params=()
	[[ -s $ctl/axl.params ]] && read -r -a params <"$ctl/axl.params"
	insmod "$ctl/axl.ko" "${params[@]}" ||
		finish 3 "insmod axl.ko ${params[*]} failed (see the kernel log above)"
	# The kernel loads a module despite unknown parameters; a typo must not pass.
	unknown=$($bb dmesg | $bb sed -n "s/.*axl: unknown parameter '\([^']*\)' ignored.*/\1/p")
	[[ -z $unknown ]] || finish 3 "axl.ko has no parameter(s): $unknown (check --module-param; modinfo -p axl.ko lists them)"
	log "loaded axl.ko${params[*]:+ ${params[*]}}"
	# run.sh --vcpu-dump-after names the vCPUs' PCs from these (axl's too)
	[[ -e $ctl/kallsyms.want ]] && cat /proc/kallsyms >"$ctl/kallsyms"
fi

[[ -e $ctl/cmd ]] || finish 0 "no command"
log "running command at uptime $(uptime_s) s"
: >"$ctl/started"
start=${EPOCHREALTIME/./}
bash "$ctl/cmd" </dev/null
rc=$?
us=$((${EPOCHREALTIME/./} - start))
finish "$rc" "command exited with $rc after $((us / 1000000)).$(printf %03d $((us / 1000 % 1000))) s"
