# shellcheck shell=bash
# How one kselftest-style TAP program did, for the device suites
# (tests/device/run-suite.sh, scripts/vm/arm64-csuite.sh). Sourced.

# tap_result NAME RC TAPFILE — sets p, f, s (passed, failed, skipped) for one
# program from its TAP output and exit status, and appends what went wrong
# to the caller's problems array. Subtests count; kselftest's "# Totals" line
# does not (nothing counts twice). Exit 4 (KSFT_SKIP) without a failure is a
# skip; a non-zero exit without a failing line, a timeout (124, 137) or no
# result at all is a failure.
tap_result() {
	local name=$1 rc=$2
	read -r p f s < <(awk '
		/^[[:space:]]*not ok [0-9]+/ {
			if ($0 ~ /#[[:space:]]*(SKIP|skip)/) s++; else f++
			next
		}
		/^[[:space:]]*ok [0-9]+/ {
			if ($0 ~ /#[[:space:]]*(SKIP|skip)/) s++; else p++
		}
		END { printf "%d %d %d\n", p, f, s }
	' "$3")
	if ((rc == 124 || rc == 137)); then
		problems+=("$name timed out")
		f=$((f + 1))
	elif ((rc == 4 && f == 0)); then
		((p + s == 0)) && s=1
	elif ((rc != 0 && f == 0)); then
		problems+=("$name exited $rc without a failing TAP line")
		f=1
	elif ((rc == 0 && p + f + s == 0)); then
		problems+=("$name printed no TAP results")
		f=1
	fi
	((f)) && problems+=("$name: $f failed")
	return 0
}
