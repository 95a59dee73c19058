#!/bin/bash
# PID 1 of the guest after switch_root (host root, read-only 9p). Sets up the
# kernel interfaces the tests use, loads the modules run.sh asked for, runs
# the command from the control share, stores its exit code and powers off.
# It must never exit: PID 1 exiting panics the kernel.
#
# Control share (/run/axl/ctl, written by run.sh):
#   env       sourced first (AXL_REPO, AXL_KVER, user --env values, ...)
#   modules   one "modprobe" line per module: NAME [PARAM=VALUE...]
#   axl.ko    our module (absent with --no-module); params in axl.params
#   mounts    extra 9p shares: TAG PATH (host dirs hidden under our tmpfs)
#   cmd       bash script to run (absent with --shell and no command)
#   shell     present: interactive shell on the console afterwards
# Results: exit code in ctl/rc; dmesg and command output in /run/axl/results.
ctl=/run/axl/ctl
results=/run/axl/results

log() { echo "axl-vm: $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

power_off() {
	sync
	busybox poweroff -f
	busybox reboot -f # -no-reboot makes QEMU exit on reboot too
	sleep 5
}

# finish RC MESSAGE — record the outcome for run.sh and power off.
finish() {
	dmesg >"$results/dmesg.txt" 2>&1
	echo "$1" >"$ctl/rc.tmp" && mv "$ctl/rc.tmp" "$ctl/rc"
	log "$2 (uptime $(uptime_s) s)"
	if [[ -e $ctl/shell ]]; then
		log "interactive shell; 'exit' or Ctrl-D powers off"
		setsid -c bash -i </dev/console >/dev/console 2>&1
	fi
	power_off
}

export PATH=/run/axl/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp/home TERM=${TERM:-linux} LANG=C.UTF-8
mkdir -p "$HOME" /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
ln -sf /proc/self/fd /dev/fd 2>/dev/null

if [[ -e $ctl/mounts ]]; then
	while read -r tag path; do
		mkdir -p "$path" && mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro "$tag" "$path" ||
			finish 3 "cannot mount host $path (9p tag $tag)"
	done <"$ctl/mounts"
fi

# shellcheck source=/dev/null
source "$ctl/env" || finish 3 "cannot read $ctl/env"

if [[ -e $ctl/modules ]]; then
	while read -r name params; do
		# shellcheck disable=SC2086 # params are separate words by design
		modprobe "$name" $params || finish 3 "modprobe $name $params failed (see dmesg above)"
	done <"$ctl/modules"
fi

if [[ -e $ctl/axl.ko ]]; then
	deps=$(modinfo -F depends "$ctl/axl.ko" | tr ',' ' ')
	for dep in $deps; do
		modprobe "$dep" || finish 3 "modprobe $dep (needed by axl.ko) failed"
	done
	read -r -a params <"$ctl/axl.params" 2>/dev/null || params=()
	insmod "$ctl/axl.ko" "${params[@]}" || finish 3 "insmod axl.ko ${params[*]} failed (see dmesg above)"
	log "loaded axl.ko ${params[*]}"
fi

if [[ ! -e $ctl/cmd ]]; then
	finish 0 "no command"
fi
log "running command at uptime $(uptime_s) s"
cd "${AXL_REPO:-/}" || finish 3 "cannot cd to $AXL_REPO in the guest"
start=$(date +%s.%N)
bash "$ctl/cmd" </dev/null
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
finish "$rc" "command exited with $rc after ${secs} s"
