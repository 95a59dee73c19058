# shellcheck shell=bash
# Which kernel-log splats fail a device suite (tests/device/run-suite.sh,
# scripts/vm/arm64-csuite.sh). Sourced.

# What marks a splat: WARN/BUG/oops, the sanitizers, lockdep and the
# sleeping-in-atomic check (arm64 prints "Call trace:", x86 "Call Trace:").
SPLAT_LINE='WARNING:|BUG:|Oops|KASAN|UBSAN|general protection fault|kernel BUG|Call [Tt]race|possible circular locking|inconsistent lock state|sleeping function called'

# Known benign, shown and not counted. A line is benign on its own; a report
# (from "[ cut here ]" to "[ end trace ]") is benign when it carries the message:
# - "stack going in the wrong direction? at return_to_handler": the x86 ORC
#   unwinder's one-line note when perf -g samples inside function_graph's return
#   trampoline (the verify tests do both at once); no WARN(), no trace.
# - "DMA-API: vivid vivid.0: mapping sg segment longer than device claims to
#   support": vivid never raises its device's DMA max_seg_size from the 64 KiB
#   default, so with DMA_API_DEBUG (the arm64 debug kernel) its dma-contig importer
#   warns once when it maps a contiguous CMA frame as the one segment dma-contig
#   needs. The mapping is right; the report names vivid, never axl.
BENIGN_LINE='WARNING: stack going in the wrong direction\? at return_to_handler'
BENIGN_REPORT='DMA-API: vivid vivid\.[0-9]+: mapping sg segment longer than device claims to support'

# kernel_splats DMESG_FILE — sets `splats` (the lines that fail the suite) and
# `ignored` (benign lines, and the message of each benign report).
kernel_splats() {
	local out
	out=$(awk -v splat="$SPLAT_LINE" -v line_ok="$BENIGN_LINE" -v report_ok="$BENIGN_REPORT" '
		function flush(   i) {
			for (i = 1; i <= n; i++) {
				if (benign) { if (block[i] ~ report_ok) print "I\t" block[i] }
				else if (block[i] ~ splat) print "S\t" block[i]
			}
			n = 0; benign = 0; inside = 0
		}
		/-+\[ cut here \]-+/ { flush(); inside = 1; next }
		inside {
			block[++n] = $0
			if ($0 ~ report_ok) benign = 1
			if ($0 ~ /---\[ end trace/) flush()
			next
		}
		$0 ~ splat { print ($0 ~ line_ok ? "I" : "S") "\t" $0 }
		END { flush() }
	' "$1")
	splats=$(sed -n 's/^S\t//p' <<<"$out")
	ignored=$(sed -n 's/^I\t//p' <<<"$out")
}
