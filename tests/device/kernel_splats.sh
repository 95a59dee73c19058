# shellcheck shell=bash
# Which kernel-log splats fail a device suite (tests/device/run-suite.sh,
# scripts/vm/arm64-csuite.sh). Sourced.

# What marks a splat: WARN/BUG/oops, the sanitizers, lockdep and the
# sleeping-in-atomic check (arm64 prints "Call trace:", x86 "Call Trace:").
SPLAT_LINE='WARNING:|BUG:|Oops|KASAN|UBSAN|general protection fault|kernel BUG|Call [Tt]race|possible circular locking|inconsistent lock state|sleeping function called'

# Known benign, shown and not counted: none of them is axl's, and each is named
# by its message and, for a report, by where it comes from.
# - A line: "stack going in the wrong direction? at return_to_handler", the x86
#   ORC unwinder's note when perf -g samples inside function_graph's return
#   trampoline (the verify tests do both at once); no WARN(), no trace.
# - A WARN report ("[ cut here ]" to "[ end trace ]") with "DMA-API: vivid
#   vivid.N: mapping sg segment longer than device claims to support": vivid
#   never raises its device's DMA max_seg_size from the 64 KiB default, so with
#   DMA_API_DEBUG (the arm64 debug kernel) its dma-contig importer warns once when
#   it maps a contiguous CMA frame as the one segment dma-contig needs. The
#   mapping is right.
# - A stack dump after "schedule_timeout: wrong timeout value" from vivid's
#   capture or output thread (vivid_thread_vid_cap/_out): when a starved guest
#   lets vivid fall behind its frame clock, it asks to sleep a negative time;
#   the kernel prints this, does not sleep, and vivid catches up.
# - A WARN report whose call trace runs through rcu_tasks_rude_wait_gp(), at
#   boot, before any module: the RCU Tasks Rude self-test calls
#   schedule_on_each_cpu() while the second CPU comes online, and during that
#   bring-up cpus_read_lock() does not hold the online mask still, so
#   flush_work() meets a per-CPU work it never initialised and WARNs in
#   __flush_work() (kernel/workqueue.c; upstream fixed it in "rcu-tasks: Fix race
#   in schedule and flush work"). It depends on timing: two boots of the arm64
#   debug kernel in five printed it. Shown by its WARNING line.
BENIGN_LINE='WARNING: stack going in the wrong direction\? at return_to_handler'
BENIGN_REPORT='DMA-API: vivid vivid\.[0-9]+: mapping sg segment longer than device claims to support'
BENIGN_REPORT_FROM='rcu_tasks_rude_wait_gp[+]0x'
BENIGN_DUMP='schedule_timeout: wrong timeout value'
BENIGN_DUMP_FROM='vivid_thread_vid_(cap|out)\+'

# kernel_splats DMESG_FILE — sets `splats` (the lines that fail the suite) and
# `ignored` (benign lines, and the first line of each benign report or dump).
kernel_splats() {
	local out
	out=$(awk -v splat="$SPLAT_LINE" -v line_ok="$BENIGN_LINE" -v report_ok="$BENIGN_REPORT" \
		-v report_from="$BENIGN_REPORT_FROM" -v dump_start="$BENIGN_DUMP" -v dump_ok="$BENIGN_DUMP_FROM" '
		# A report or dump is held until it ends, then judged whole.
		function flush(   i) {
			for (i = 1; i <= n; i++) {
				if (benign) { if (i == first) print "I\t" block[i] }
				else if (block[i] ~ splat) print "S\t" block[i]
			}
			n = 0; benign = 0; mode = ""; warned = 0
		}
		# The lines of a stack dump: its header, registers and frames.
		function dump_line(l) {
			return l ~ /(CPU: |Tainted: |Hardware name: |Call [Tt]race:|<\/?TASK>|Workqueue: |pstate: |[pl]r : |sp : |x[0-9]+ ?: )/ ||
				l ~ /^\[[ 0-9.]+\] +(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+/
		}
		mode == "dump" && !dump_line($0) { flush() }
		/-+\[ cut here \]-+/ { flush(); mode = "report"; first = 1; next }
		$0 ~ dump_start { flush(); mode = "dump"; block[++n] = $0; first = n; next }
		mode == "report" {
			block[++n] = $0
			if (!warned && $0 ~ /WARNING:/) warned = n
			if ($0 ~ report_ok) { benign = 1; first = n }
			if ($0 ~ report_from) { benign = 1; first = warned ? warned : n }
			if ($0 ~ /---\[ end trace/) flush()
			next
		}
		mode == "dump" {
			block[++n] = $0
			if ($0 ~ dump_ok) benign = 1
			if ($0 ~ /<\/TASK>/) flush()
			next
		}
		$0 ~ splat { print ($0 ~ line_ok ? "I" : "S") "\t" $0 }
		END { flush() }
	' "$1")
	splats=$(sed -n 's/^S\t//p' <<<"$out")
	ignored=$(sed -n 's/^I\t//p' <<<"$out")
}

# kernel_log_from_boot DMESG_FILE — true when the log starts at boot; else sets
# `log_gap` to say where it starts (the ring wrapped: splats before that are lost).
kernel_log_from_boot() {
	local first
	first=$(head -n 1 "$1")
	[[ $first =~ ^\[\ *0\.000000\] ]] && return 0
	log_gap="the kernel log starts at ${first%%]*}], not at boot: the ring wrapped and what came before is lost (boot with a larger log_buf_len)"
	return 1
}
