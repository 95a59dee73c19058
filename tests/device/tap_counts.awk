# Counts TAP results: prints "passed failed skipped".
# Subtests (indented "    ok 1 ...") are counted; kselftest's trailing
# "# Totals" line is not, so nothing is counted twice. XFAIL counts as a pass.
/^[[:space:]]*not ok [0-9]+/ {
	if ($0 ~ /#[[:space:]]*(SKIP|skip)/) s++; else f++
	next
}
/^[[:space:]]*ok [0-9]+/ {
	if ($0 ~ /#[[:space:]]*(SKIP|skip)/) s++
	else p++
}
END { printf "%d %d %d\n", p, f, s }
