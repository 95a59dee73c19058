# shellcheck shell=bash
# A watchdog for long guest runs (tests/device/run-suite.sh with AXL_STALL_DUMP_S): when
# nothing under the results directory has changed for that many seconds, it writes what
# the guest is doing to stall-N.txt there: tasks, kernel stacks of the suite's processes
# and of tasks blocked or running, axl's counters and the kernel's blocked-task dump.
# It only looks; the suite's own limits still end the run. Sourced.

# stall_dump FILE — one snapshot of the guest into FILE.
stall_dump() {
	local t comm state
	{
		echo "== $(date +%T), uptime $(cut -d' ' -f1 /proc/uptime) s, load $(cat /proc/loadavg)"
		ps -eLo pid,tid,ppid,stat,wchan:32,pcpu,time,comm,args
		echo "== kernel stacks (deno, cat, perf, gst, kworkers; any task blocked or running)"
		for t in /proc/[0-9]*/task/[0-9]*; do
			comm=$(cat "$t/comm" 2>/dev/null) || continue
			state=$(cut -d' ' -f3 "$t/stat" 2>/dev/null)
			case "$comm:$state" in deno* | tokio* | cat:* | perf* | gst* | kworker* | *:D | *:R) ;;
			*) continue ;;
			esac
			echo "-- $t $comm $state syscall: $(cat "$t/syscall" 2>/dev/null)"
			cat "$t/stack" 2>/dev/null
		done
		echo "== /sys/kernel/debug/axl/stats"
		cat /sys/kernel/debug/axl/stats 2>&1
		echo "== dma-bufs (bufinfo, 5 s at most)"
		timeout 5 cat /sys/kernel/debug/dma_buf/bufinfo 2>&1 | tail -n 40
	} >"$1" 2>&1
	# Blocked tasks' stacks into the kernel log, kept beside the snapshot.
	echo w >/proc/sysrq-trigger 2>/dev/null && dmesg | tail -n 400 >"${1%.txt}-dmesg.txt"
}

# stall_watch DIR SECONDS [DUMPS] — run in the background; at most DUMPS snapshots (3).
stall_watch() {
	local dir=$1 limit=$2 max=${3:-3} last="" now quiet=0 n=0
	while ((n < max)); do
		sleep 30
		now=$(find "$dir" -type f ! -name 'stall-*' -exec stat -c '%n %s %Y' {} + 2>/dev/null | md5sum)
		if [[ $now == "$last" ]]; then quiet=$((quiet + 30)); else quiet=0; fi
		last=$now
		if ((quiet >= limit)); then
			n=$((n + 1))
			echo "stall_watch: nothing under $dir changed for $quiet s; snapshot in stall-$n.txt"
			stall_dump "$dir/stall-$n.txt"
			quiet=0
		fi
	done
}
