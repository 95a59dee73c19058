# shellcheck shell=bash
# Which kernel-log splats fail a device suite (tests/device/run-suite.sh,
# scripts/vm/arm64-csuite.sh). Sourced.

# What marks a splat: WARN/BUG/oops, the sanitizers, lockdep and the
# sleeping-in-atomic check (arm64 prints "Call trace:", x86 "Call Trace:").
SPLAT_LINE='WARNING:|BUG:|Oops|KASAN|UBSAN|general protection fault|kernel BUG|Call [Tt]race|possible circular locking|inconsistent lock state|sleeping function called'

# Known benign, shown and not counted: none is a fault of axl's, and each is
# named by its message and, for a report, by where it comes from.
# - A line: "stack going in the wrong direction? at return_to_handler", the x86
#   ORC unwinder's note when perf -g samples inside function_graph's return
#   trampoline (the verify tests do both at once); no WARN(), no trace.
# - A stack dump after "schedule_timeout: wrong timeout value" from vivid's
#   capture or output thread (vivid_thread_vid_cap/_out): when a starved guest
#   lets vivid fall behind its frame clock, it asks to sleep a negative time;
#   the kernel prints this, does not sleep, and vivid catches up.
# - WARN reports ("[ cut here ]" to "[ end trace ]"), each named by a line of
#   its message and a frame of its call trace (BENIGN_REPORTS below):
#   1. "DMA-API: vivid vivid.N: mapping sg segment longer than device claims to
#      support" while vb2's dma-contig maps a dma-buf: vivid never raises its
#      device's DMA max_seg_size from the 64 KiB default, so with DMA_API_DEBUG
#      (the arm64 debug kernel) it warns when it maps a contiguous CMA frame as
#      the one segment dma-contig needs. The mapping is right.
#   2. DMA-API's three sync-direction reports ("syncs DMA memory with different
#      direction", "syncs device read-only DMA memory for cpu", "syncs device
#      write-only DMA memory to device"), for any device, when the sync is a
#      dma-heap's begin_cpu_access()/end_cpu_access(): the CMA and system heaps
#      sync every mapped attachment of a buffer in the direction of the CPU's
#      access, whatever direction that attachment was mapped in, and DMA-API
#      debugging wants a mapping synced only in its own. A camera frame carries a
#      FROM_DEVICE mapping (the camera writes it) beside TO_DEVICE ones (axl's
#      readers), so any CPU access to it, the simulated engine's (a read begun
#      DMA_FROM_DEVICE, a write DMA_TO_DEVICE: kernel/axl_drv.h) or a user's
#      DMA_BUF_IOCTL_SYNC, is reported against one of them (docs/rig.md).
#   2a. DMA-API's "device driver tries to sync DMA memory it has not allocated",
#      for any device, when the sync is a dma-heap's begin_cpu_access()/
#      end_cpu_access(): the CMA and system heaps mark an attachment mapped and
#      unmapped without the buffer's lock and sync every attachment marked
#      mapped, so a CPU access beside an importer's unmap (axl's release of an
#      import, a job's end) can sync a mapping that is just gone. The heap's
#      race, not the importer's; the cache work is done on pages that stay
#      allocated. On 5.15 that search is what stalled debug guests when the
#      device's maximum segment was 4 GiB or more (kernel/axl_dev.c, docs/rig.md).
#   3. "cacheline tracking EEXIST, overlapping mappings aren't supported" when
#      the Metis node attaches a buffer (axl_metis_attach): the node maps every
#      buffer DMA_BIDIRECTIONAL, as metis.ko does because an attach does not say
#      which way later transfers go (docs/metis-node.md), and DMA-API debugging
#      tracks a second mapping that a device may write, here beside a camera's
#      FROM_DEVICE one. Transfers and camera writes are ordered by the frame's
#      fences; nothing syncs one mapping while the other's device writes.
#   4. The WARN in __flush_work() whose call trace runs through
#      rcu_tasks_rude_wait_gp(), at boot, before any module: the RCU Tasks Rude
#      self-test calls schedule_on_each_cpu() while the second CPU comes online,
#      and during that bring-up cpus_read_lock() does not hold the online mask
#      still, so flush_work() meets a per-CPU work it never initialised
#      (kernel/workqueue.c; upstream fixed it in "rcu-tasks: Fix race in schedule
#      and flush work"). It depends on timing: two boots of the arm64 debug
#      kernel in five printed it.
BENIGN_LINE='WARNING: stack going in the wrong direction\? at return_to_handler'
BENIGN_DUMP='schedule_timeout: wrong timeout value'
BENIGN_DUMP_FROM='vivid_thread_vid_(cap|out)\+'
# One report rule a line: a regex for a line of the message, a tab, a regex for
# a frame of the call trace. The message line is the one shown.
BENIGN_REPORTS='DMA-API: vivid vivid\.[0-9]+: mapping sg segment longer than device claims to support	 vb2_dc_map_dmabuf\+0x
DMA-API: [^ ]+ [^ ]+: device driver syncs (DMA memory with different direction|device read-only DMA memory for cpu|device write-only DMA memory to device)	 (cma|system)_heap_dma_buf_(begin|end)_cpu_access\+0x
DMA-API: [^ ]+ [^ ]+: device driver tries to sync DMA memory it has not allocated \[device address=0x[0-9a-f]+\] \[size=[0-9]+ bytes\]	 (cma|system)_heap_dma_buf_(begin|end)_cpu_access\+0x
DMA-API: axl-metis-sim [^ ]+: cacheline tracking EEXIST, overlapping mappings aren.t supported	 axl_metis_attach\+0x
WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel/workqueue\.c:[0-9]+ __flush_work	 rcu_tasks_rude_wait_gp\+0x'

# kernel_splats DMESG_FILE — sets `splats` (the lines that fail the suite) and
# `ignored` (benign lines, and the first line of each benign report or dump).
kernel_splats() {
	local out
	# The rules go through the environment: awk -v would read their backslashes.
	out=$(BENIGN_REPORTS=$BENIGN_REPORTS awk -v splat="$SPLAT_LINE" -v line_ok="$BENIGN_LINE" \
		-v dump_start="$BENIGN_DUMP" -v dump_ok="$BENIGN_DUMP_FROM" '
		BEGIN {
			rules = split(ENVIRON["BENIGN_REPORTS"], rule, "\n")
			for (r = 1; r <= rules; r++) {
				split(rule[r], part, "\t")
				says[r] = part[1]; from[r] = part[2]
			}
		}
		# A report or dump is held until it ends, then judged whole. Two CPUs that
		# warn at once interleave their reports line by line, so a report that
		# starts before the open one ends joins it, and the cluster ends with its
		# last report. It is benign when every report in it is: as many lines
		# matched the message of a rule as reports began, each rule that matched found
		# its frame in as many call traces, and nothing else in the cluster looks
		# like a splat (one WARNING line a report, no BUG, KASAN, lockdep...).
		function flush(   i, r, said) {
			if (mode == "report") {
				benign = reports > 0 && warns == reports && others == 0
				for (r = 1; r <= rules; r++) {
					said += says_n[r]
					if (from_n[r] < says_n[r]) benign = 0
				}
				if (said != reports) benign = 0
			}
			for (i = 1; i <= n; i++) {
				if (benign) { if (mode != "report" ? i == first : shown[i]) print "I\t" block[i] }
				else if (block[i] ~ splat) print "S\t" block[i]
			}
			for (r = 1; r <= rules; r++) says_n[r] = from_n[r] = 0
			for (i = 1; i <= n; i++) shown[i] = 0
			n = 0; benign = 0; mode = ""; reports = 0; open = 0; warns = 0; others = 0
		}
		# The lines of a stack dump: its header, registers and frames.
		function dump_line(l) {
			return l ~ /(CPU: |Tainted: |Hardware name: |Call [Tt]race:|<\/?TASK>|Workqueue: |pstate: |[pl]r : |sp : |x[0-9]+ ?: )/ ||
				l ~ /^\[[ 0-9.]+\] +(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+/
		}
		mode == "dump" && !dump_line($0) { flush() }
		/-+\[ cut here \]-+/ {
			if (mode != "report") { flush(); mode = "report" }
			reports++; open++
			next
		}
		$0 ~ dump_start { flush(); mode = "dump"; block[++n] = $0; first = n; next }
		mode == "report" {
			block[++n] = $0
			for (r = 1; r <= rules; r++) {
				if ($0 ~ says[r]) { says_n[r]++; shown[n] = 1 }
				if ($0 ~ from[r]) from_n[r]++
			}
			if ($0 ~ /WARNING: CPU: /) warns++
			else if ($0 ~ splat && $0 !~ /Call [Tt]race/ && !shown[n]) others++
			if ($0 ~ /---\[ end trace/ && --open == 0) flush()
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
